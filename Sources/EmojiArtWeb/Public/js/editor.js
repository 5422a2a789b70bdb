// The editor page (/documents/{id}): one DocumentEditor for the document named by the path. Its
// connection is the one the page opened as it started (editor.html's inline script), so that the
// server's snapshot is on its way while the styles arrive and the editor is built.
import { DocumentEditor } from "./editor/document-editor.js";
import { LiveConnection } from "./live.js";
import { registerServiceWorker } from "./offline/worker-registration.js";

const documentId = decodeURIComponent(location.pathname.replace(/^\/documents\//, "").replace(/\/+$/, ""));
const socket = LiveConnection.connect(documentId);
const editor = new DocumentEditor(documentId);
editor.start(socket);
registerServiceWorker(editor.copy.copies);
