// The system's libcrypto (OpenSSL 3, Apache-2.0): its message digests only (EmojiArtDigest).
#include <openssl/evp.h>
