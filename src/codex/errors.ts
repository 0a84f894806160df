// How a call to codex, or codex itself, fails: what the client rejects with and the host reports.
import { JsonRpcCode } from "../json-rpc/index.js";

export type ExitInfo = { code: number | null; signal: string | null; reason: string };

export class CodexRpcError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "CodexRpcError";
  }
}

/**
 * Codex answered that it has no such method: a codex of another version than the pinned one
 * (CODEX_PATH) that lacks it. Learnt from the answer, never assumed from a version number.
 */
export class CodexMethodUnsupportedError extends CodexRpcError {
  constructor(
    readonly method: string,
    version: string | undefined,
  ) {
    super(
      `this codex (${version ?? "unknown version"}) does not offer ${method}; it needs a codex that does (unset CODEX_PATH to run the pinned one)`,
      JsonRpcCode.MethodNotFound,
    );
    this.name = "CodexMethodUnsupportedError";
  }
}

/** The method an app-server error answer says it does not know ("unknown variant `x`"), if that is what it says. */
export function unknownMethodOf(error: { code: number; message: string }): string | undefined {
  if (error.code !== JsonRpcCode.InvalidRequest) return undefined;
  return /^Invalid request: unknown variant `([^`]+)`/.exec(error.message)?.[1];
}

/** Codex exited (or could not be spawned) before it answered `initialize`: a set-up problem, not a crash. */
export class CodexStartError extends Error {
  constructor(
    readonly exit: ExitInfo,
    readonly stderr: readonly string[],
  ) {
    const said = stderr.filter((l) => /\berror\b/i.test(l)).slice(-3);
    const detail = (said.length > 0 ? said : stderr.slice(-3)).join(" / ");
    super(
      `Codex could not start (${exit.reason})${detail ? `: ${detail}` : ""}. ` +
        "Check CODEX_PATH (the codex binary), CODEX_ACP_CODEX_ARGS (extra arguments), and that CODEX_HOME exists and is writable.",
    );
    this.name = "CodexStartError";
  }
}

export class CodexExitedError extends Error {
  constructor(readonly exit: ExitInfo) {
    super(`Codex app-server stopped (${exit.reason})`);
    this.name = "CodexExitedError";
  }
}
