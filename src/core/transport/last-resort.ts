// What keeps a long-lived agent serving when one piece fails where nobody catches it, and what
// ends it cleanly when it is asked to stop. Serve mode only: a bug in one session's code (a throw
// in a timer, a rejection nobody awaited) is logged and the other sessions go on; Node 20 would
// otherwise end the process and every session with it. SIGTERM / SIGINT / SIGHUP (the terminal or
// session that started it went away) shut down as the client closing stdin does (codex stopped,
// the catalog folder removed); a second one exits at once.
import type { Logger } from "../../log/index.js";

/** Logs what nobody caught instead of ending the process; returns the uninstall. */
export function keepServingOnFault(log: Logger, proc: NodeJS.Process = process): () => void {
  const onException = (err: unknown, origin: string): void => {
    log.error({ err: describe(err), origin }, "an error nobody caught; logged, the agent goes on serving");
  };
  const onRejection = (reason: unknown): void => {
    log.error(
      { err: describe(reason), origin: "unhandledRejection" },
      "a rejection nobody handled; logged, the agent goes on serving",
    );
  };
  proc.on("uncaughtException", onException);
  proc.on("unhandledRejection", onRejection);
  return () => {
    proc.off("uncaughtException", onException);
    proc.off("unhandledRejection", onRejection);
  };
}

/** Resolves with the first SIGTERM / SIGINT / SIGHUP; a second signal exits at once (a stuck shutdown must not trap the user). */
export function stopSignal(log: Logger, proc: NodeJS.Process = process): Promise<NodeJS.Signals> {
  let signalled = false;
  return new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      if (signalled) {
        log.warn({ signal }, "a second stop signal; exiting now");
        proc.exit(1);
      }
      signalled = true;
      log.info({ signal }, "asked to stop; shutting down");
      resolve(signal);
    };
    proc.on("SIGTERM", onSignal);
    proc.on("SIGINT", onSignal);
    proc.on("SIGHUP", onSignal);
  });
}

/** An error's stack (where it came from matters here), or what was thrown. */
function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
