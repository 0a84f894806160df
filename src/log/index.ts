// The one logger. stdout carries ACP only, so logs go to stderr (fd 2) or to
// CODEX_ACP_LOG_FILE. Level from CODEX_ACP_LOG_LEVEL (default "info").
// Never log file contents, tokens or prompts at info level: use debug for payloads.
import pino, { type Logger } from "pino";

export type { Logger };

function createLogger(): Logger {
  const level = process.env.CODEX_ACP_LOG_LEVEL ?? "info";
  const file = process.env.CODEX_ACP_LOG_FILE;
  // Synchronous destination: no worker thread (fast start), and nothing is lost on exit.
  const destination = file
    ? pino.destination({ dest: file, sync: true, mkdir: true })
    : pino.destination({ fd: 2, sync: true });
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: {
        paths: ["token", "*.token", "apiKey", "*.apiKey", "authorization", "*.authorization", "headers.authorization"],
        censor: "[redacted]",
      },
    },
    destination,
  );
}

export const log: Logger = createLogger();
