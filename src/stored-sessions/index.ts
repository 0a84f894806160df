// Public surface of src/stored-sessions: what other folders may use.
export { registerLifecycle } from "./lifecycle.js";
export { registerSessionAdmin } from "./admin.js";
export { registerSessionArchive } from "./archive.js";
