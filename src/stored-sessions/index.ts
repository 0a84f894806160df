// Public surface of src/stored-sessions: the requests on sessions Codex keeps (load, resume, list,
// close, delete, fork, archive, status), registered by the composition root (src/app.ts).
export { registerLifecycle } from "./lifecycle.js";
export { registerSessionAdmin } from "./admin.js";
export { registerSessionArchive } from "./archive.js";
