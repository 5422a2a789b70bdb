// The editor page (/documents/{id}): one DocumentEditor for the document named by the path. Its
// connection opens first, so that the server's snapshot is on its way while the editor is built.
import { DocumentEditor } from "./editor/document-editor.js";
import { LiveConnection } from "./live.js";
import { registerServiceWorker } from "./offline/worker-registration.js";

const documentId = decodeURIComponent(location.pathname.replace(/^\/documents\//, "").replace(/\/+$/, ""));
const socket = LiveConnection.connect(documentId);
new DocumentEditor(documentId).start(socket);
registerServiceWorker();
