// Owns the current `codex app-server` child. One child serves every ACP session;
// when it dies, the next caller of `client()` gets a fresh, initialized one.
import type { ChildProcess } from "node:child_process";
import type { Logger } from "../../log/index.js";
import { deriveCatalogWithoutNativePatch, type DerivedCatalog } from "../catalog.js";
import { AppServerClient } from "../client.js";
import { CodexExitedError, CodexStartError, type ExitInfo } from "../errors.js";
import { locateCodex, type CodexCommand } from "../locate.js";
import { initializeParams, type CodexClientInfo, type EarlyConfigRead, type PrestartedCodex } from "../spawn.js";
import type * as v2 from "../generated/v2/index.js";
import { codexVersionOf, initializeResultSchema } from "../schemas.js";
import { markPhase } from "../../log/index.js";
import { UserConfigReader } from "../user-config.js";
import { DEFAULT_HANG_TIMEOUT_MS } from "../../config/index.js";
import { probeCodex } from "./watchdog.js";

export type CodexHostOptions = {
  command?: CodexCommand;
  /** Extra app-server arguments (e.g. `-c key=value`). */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  clientInfo: CodexClientInfo;
  /** A child the bin spawned (and sent `initialize`) before anything else loaded; used for the first start. */
  prestarted?: PrestartedCodex;
  /** How long codex may answer nothing (ms) before it is probed, and then declared hung (default 30 s). */
  hangMs?: number;
  /** The longest wait for any answer (ms; default 120 s, shorter per method where it makes sense). */
  deadlineMs?: number;
};

/** Silence while a request of ours waits on codex before it is probed (ms). */
const REQUEST_QUIET_MS = 2_000;
/** How long the probe may go unanswered before codex is judged (watchdog.ts): hung, or working and given another window (ms). */
const PROBE_DEADLINE_MS = 5_000;

export class CodexHost {
  private current:
    | {
        client: AppServerClient;
        ready: Promise<AppServerClient>;
        generation: number;
        startedAt: number;
        initialized: boolean;
      }
    | undefined;
  private generation = 0;
  private readonly exitListeners = new Set<(exit: ExitInfo, generation: number) => void>();
  private closed = false;
  private startError: Error | undefined;
  private catalog: Promise<DerivedCatalog> | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private probing = false;
  private outputHeld = false;
  private home: string | undefined;
  /** The answer to the bin's early config/read (spawn.ts), until a reader of its folder takes it. */
  private earlyConfig: (EarlyConfigRead & { answer: Promise<v2.ConfigReadResponse> }) | undefined;
  private readonly accountListeners = new Set<() => void>();
  /** Listeners that follow codex's notifications across restarts. */
  private readonly notificationListeners = new Set<(method: string, params: unknown) => void>();
  /** notificationListeners as an array, remade after a change (fanOutNotification). */
  private notificationListenerList: ReadonlyArray<(method: string, params: unknown) => void> | undefined;
  /** Whether anything is waiting on codex (a running turn); set by the agent. */
  private busy: () => boolean = () => false;

  /** The user's configuration per directory (config/read), shared by whoever needs it. */
  readonly userConfig: UserConfigReader;

  constructor(
    private opts: CodexHostOptions,
    private readonly log: Logger,
  ) {
    this.userConfig = new UserConfigReader(
      {
        client: () => this.client(),
        takePrefetchedConfig: (cwd, fingerprint) => this.takePrefetchedConfig(cwd, fingerprint),
      },
      log,
    );
  }

  /** Spawns the child now (and initializes it in the background) if none is alive. */
  start(): void {
    if (this.closed) return;
    if (this.current?.client.alive) return;
    const prestarted = this.opts.prestarted;
    this.opts.prestarted = undefined;
    let client: AppServerClient;
    try {
      const source: CodexCommand | ChildProcess = prestarted?.child ?? this.opts.command ?? locateCodex();
      client = new AppServerClient(source, this.log, {
        args: this.opts.args,
        env: this.opts.env,
        ...(this.opts.deadlineMs ? { deadlineMs: this.opts.deadlineMs } : {}),
      });
    } catch (err) {
      // No codex to run (or arguments it cannot be given): remember why, so every caller of client()
      // gets that message. Logged once while it stays the same: every request meets it again.
      const said = this.startError?.message;
      this.startError = err instanceof Error ? err : new Error(String(err));
      if (this.startError.message !== said) this.log.error({ err: this.startError.message }, "cannot start codex");
      return;
    }
    this.startError = undefined;
    const generation = ++this.generation;
    const startedAt = Date.now();
    const initialized = prestarted
      ? client.adopt(prestarted.initializeId, "initialize")
      : client.request("initialize", initializeParams(this.opts.clientInfo));
    // Adopted now, in the tick the client was made: its answer cannot arrive before it is awaited.
    if (prestarted?.configRead) {
      const { id, cwd, fingerprint } = prestarted.configRead;
      const answer = client.adoptCall(id, "config/read");
      answer.catch(() => undefined); // its taker falls back to asking; nobody may take it at all
      this.earlyConfig = { cwd, fingerprint, answer };
    }
    const ready = initialized.then(
      (result) => {
        const init = initializeResultSchema.safeParse(result);
        if (init.success && init.data.codexHome) this.home = init.data.codexHome;
        client.codexVersion = init.success ? codexVersionOf(init.data.userAgent) : undefined;
        client.notify("initialized");
        markPhase(this.log, "codex initialized", { ms: Date.now() - startedAt, codexVersion: client.codexVersion });
        if (this.current?.client === client) this.current.initialized = true;
        return client;
      },
      async (err: unknown) => {
        // Gone before it answered: a set-up problem (binary, arguments, CODEX_HOME), said as such.
        if (err instanceof CodexExitedError) throw new CodexStartError(err.exit, await client.stderrTail());
        throw err;
      },
    );
    // Failures surface to whoever awaits `client()`; avoid an unhandled rejection meanwhile.
    ready.catch(() => undefined);
    this.current = { client, ready, generation, startedAt, initialized: false };
    if (this.outputHeld) client.holdOutput(true);
    client.onNotification((method, params) => this.fanOutNotification(method, params));
    this.watch();
    void client.exited.then((exit) =>
      this.fanOut(this.exitListeners, (listener) => listener(exit, generation), "exit", "error"),
    );
  }

  /**
   * Calls each listener; one listener's bug costs that listener only (a throw from the exit
   * fan-out would be an unhandled rejection, fatal on Node 20).
   */
  private fanOut<L>(
    listeners: ReadonlySet<L>,
    call: (listener: L) => void,
    what: string,
    level: "warn" | "error",
  ): void {
    for (const listener of [...listeners]) {
      try {
        call(listener);
      } catch (err) {
        this.log[level](
          { err: err instanceof Error ? err.message : String(err) },
          `a listener of codex's ${what} failed`,
        );
      }
    }
  }

  /**
   * fanOut for the notifications, which every streamed delta passes: the listeners are an array
   * copied when they change, not per call, and no closure is made per call.
   */
  private fanOutNotification(method: string, params: unknown): void {
    this.notificationListenerList ??= [...this.notificationListeners];
    for (const listener of this.notificationListenerList) {
      try {
        listener(method, params);
      } catch (err) {
        this.log.warn(
          { err: err instanceof Error ? err.message : String(err) },
          "a listener of codex's notifications failed",
        );
      }
    }
  }

  /**
   * The answer to the config/read the bin wrote as codex spawned, for `cwd` with its files in the
   * state `fingerprint` says (config-files.ts); once. Undefined for another folder, or when the files
   * changed since (that answer is then dropped).
   */
  takePrefetchedConfig(cwd: string, fingerprint: string): Promise<v2.ConfigReadResponse> | undefined {
    const early = this.earlyConfig;
    if (early?.cwd !== cwd) return undefined;
    this.earlyConfig = undefined;
    return early.fingerprint === fingerprint ? early.answer : undefined;
  }

  /**
   * Hears the account changed by this agent itself (a sign-out): Codex's account/updated may come
   * only after its answer, and a session/new in between would still find the old account.
   */
  onAccountChange(listener: () => void): () => void {
    this.accountListeners.add(listener);
    return () => void this.accountListeners.delete(listener);
  }

  /** This agent changed the account (see onAccountChange). */
  accountChanged(): void {
    for (const listener of [...this.accountListeners]) listener();
  }

  /** Hears every notification of the current child and of every later one (a restart keeps it). */
  onNotification(listener: (method: string, params: unknown) => void): () => void {
    this.notificationListeners.add(listener);
    this.notificationListenerList = undefined;
    return () => {
      this.notificationListeners.delete(listener);
      this.notificationListenerList = undefined;
    };
  }

  /** When the current child was started (ms since the epoch). */
  get startedAt(): number | undefined {
    return this.current?.startedAt;
  }

  /** CODEX_HOME as the running codex reported it (undefined before its first initialize). */
  get codexHome(): string | undefined {
    return this.home;
  }

  /**
   * Replaces the child (the next client() starts a new one): for what codex reads only at start,
   * such as credentials another process wrote. Sessions resume on the new child.
   */
  async restart(reason: string): Promise<void> {
    const current = this.current;
    if (!current?.client.alive) return;
    this.log.info({ reason }, "restarting codex app-server");
    current.client.kill("SIGTERM", reason);
    const stubborn = setTimeout(() => current.client.kill("SIGKILL", reason), 2_000);
    await current.client.exited;
    clearTimeout(stubborn);
  }

  /** The live, initialized client, starting a new child when the previous one died. */
  async client(): Promise<AppServerClient> {
    if (this.closed) throw new Error("codex-cli-acp is shutting down");
    if (!this.current || !this.current.client.alive) this.start();
    if (this.startError || !this.current) throw this.startError ?? new Error("codex could not be started");
    return this.current.ready;
  }

  /** Holds codex's output while the ACP client is behind on ours (this child and any later one). */
  holdOutput(held: boolean): void {
    this.outputHeld = held;
    this.current?.client.holdOutput(held);
  }

  /** Tells the watchdog when a running turn waits on codex (then silence is suspicious). */
  setBusyCheck(busy: () => boolean): void {
    this.busy = busy;
  }

  /**
   * Codex health: while something waits on codex and codex has said nothing for a while, it is
   * asked a cheap question; unanswered within a window (PROBE_DEADLINE_MS at most) and doing no
   * work (watchdog.ts: stopped, or no CPU time used; where that cannot be seen, past a grace that
   * grows with the requests sent), the child is treated as dead (killed; sessions end their turn
   * with a clear error and resume on a new child with the next prompt; a session being opened is
   * opened there). A stopped or deadlocked codex looks so; a codex working on a huge request is
   * waited for (up to MAX_BUSY_MS). "A while" is `hangMs` for a running turn (a model may think
   * for long) and while codex starts, but at most REQUEST_QUIET_MS when a request of ours waits:
   * codex answers requests in milliseconds, and answers the probe even while it works on a long
   * one (checked during a 300 MB thread/resume), so session/new never waits `hangMs`.
   */
  private watch(): void {
    const hangMs = this.opts.hangMs ?? DEFAULT_HANG_TIMEOUT_MS;
    clearInterval(this.watchdog);
    this.watchdog = setInterval(
      () => {
        const client = this.current?.client;
        if (!client?.alive || this.probing) return;
        // A codex still starting (initialize unanswered: a cold disk, a slow CODEX_HOME) gets hangMs.
        const requestWaits = client.pendingCount > 0 && this.current?.initialized === true;
        if (!requestWaits && !this.busy()) return;
        if (client.silentForMs < (requestWaits ? Math.min(hangMs, REQUEST_QUIET_MS) : hangMs)) return;
        this.probing = true;
        const probedAt = Date.now();
        let busy = false;
        const onBusy = (why: string): void => {
          busy = true;
          this.log.info(
            { codexPid: client.pid, pendingBytes: client.pendingBytes },
            `codex is silent but not hung: ${why}; waiting for it`,
          );
        };
        probeCodex(client, { windowMs: Math.min(hangMs, PROBE_DEADLINE_MS), onBusy })
          .then((verdict) => {
            if (!verdict.hung) {
              if (busy)
                this.log.info(
                  { codexPid: client.pid, ms: Date.now() - probedAt },
                  `codex answered after working silently (${verdict.why})`,
                );
              return;
            }
            if (!client.alive) return;
            const reason = `codex stopped responding (nothing for ${Math.round(client.silentForMs / 1000)} s)`;
            this.log.error(
              { codexPid: client.pid, why: verdict.why },
              `${reason}; killing it, the next prompt resumes on a new one`,
            );
            client.kill("SIGKILL", reason);
          })
          .finally(() => {
            this.probing = false;
          })
          // Otherwise last-resort.ts would log it: a probe that throws must not look like a crash.
          .catch((err: unknown) =>
            this.log.error(
              { codexPid: client.pid, err: String(err) },
              "the hang check failed; it runs again at the next silence",
            ),
          );
      },
      Math.max(100, Math.min(1000, hangMs / 4)),
    );
    this.watchdog.unref();
  }

  /** Which child `client()` currently returns; sessions compare it to know they must re-attach. */
  get currentGeneration(): number {
    return this.current?.generation ?? 0;
  }

  get currentPid(): number | undefined {
    return this.current?.client.pid;
  }

  onExit(listener: (exit: ExitInfo, generation: number) => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  /**
   * The model catalog in effect with Codex's native apply_patch turned off (src/codex/catalog.ts),
   * derived once per process on first use and removed on close.
   */
  catalogWithoutNativePatch(): Promise<DerivedCatalog> {
    if (!this.catalog) {
      const derived = Promise.resolve().then(() =>
        deriveCatalogWithoutNativePatch({
          command: this.opts.command ?? locateCodex(),
          args: this.opts.args ?? [],
          env: this.opts.env,
          log: this.log,
        }),
      );
      derived.catch(() => {
        if (this.catalog === derived) this.catalog = undefined; // let a later session try again
      });
      this.catalog = derived;
    }
    return this.catalog;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    const catalog = this.catalog;
    this.catalog = undefined;
    await Promise.all([this.current?.client.close(), catalog?.then((c) => c.dispose()).catch(() => undefined)]);
  }
}
