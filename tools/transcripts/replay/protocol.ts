// Which ACP schema a transcript's messages are checked against: the version its `initialize`
// negotiated. A client's `initialize` speaks the version it asks for; the agent's answer names
// the version of everything after it (a client asking 2 of a v1-only agent gets 1, and the rest
// of the session is v1). Before any `initialize` (a hand-written transcript): v1.
import { schemaVersionFor, type AcpSchemaVersion, type AcpValidators, type SchemaViolation } from "../schema.js";
import type { Direction } from "../format.js";
import type { Json } from "./messages.js";

export class NegotiatedSchema {
  private current: AcpSchemaVersion = 1;

  constructor(private readonly validators: AcpValidators) {}

  /** The schema version the next message is checked against. */
  get version(): AcpSchemaVersion {
    return this.current;
  }

  /**
   * Validates one message, learning the version from `initialize` as it goes. For a response,
   * `method` is the method of the request it answers.
   */
  validate(dir: Direction, msg: Json, method?: string): SchemaViolation[] {
    if (msg.method === "initialize" && "id" in msg) {
      this.current = schemaVersionFor((msg.params as Json | undefined)?.protocolVersion);
    } else if (method === "initialize" && !("method" in msg)) {
      const answered = (msg.result as Json | undefined)?.protocolVersion;
      if (typeof answered === "number") this.current = schemaVersionFor(answered);
    }
    return this.validators[this.current].validate(dir, msg, method);
  }
}
