// The editor page (/documents/{id}): one DocumentEditor for the document named by the path.
import { DocumentEditor } from "./editor/document-editor.js";
import { registerServiceWorker } from "./offline/worker-registration.js";

const documentId = decodeURIComponent(location.pathname.replace(/^\/documents\//, "").replace(/\/+$/, ""));
new DocumentEditor(documentId).start();
registerServiceWorker();
