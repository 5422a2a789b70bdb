// Ids made in the page, for what it makes before the server has it (docs/OFFLINE.md): a
// document or a palette made offline.

/** A new random UUID, upper case as the server writes ids. */
export function newUUID() {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID().toUpperCase();
  const bytes = crypto.getRandomValues(new Uint8Array(16)); // pages outside a secure context
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("").toUpperCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
