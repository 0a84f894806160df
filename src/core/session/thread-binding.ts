// Which codex child a session's thread is routed from (bind; bound anew after a restart: live),
// the subagent threads its turns spawned, routed to it on the same child (adopt, release), and the
// kept turn settings that child has had: all let go at once when that child dies, the session is
// bound to another, or it closes.
import type { AppServerClient, CodexHost, ThreadListener } from "../../codex/index.js";
import { keptTurnParams, type KeptTurnParams, type ThreadSettings } from "./thread-config.js";

export class ThreadBinding {
  private client: AppServerClient | undefined;
  private detachAll: (() => void) | undefined;
  private boundGeneration = 0;
  /** Subagent threads routed to this session, with their unsubscribe. */
  private readonly adopted = new Map<string, () => void>();
  /** The kept turn settings (thread-config.ts) the bound child last got; unset when bound anew. */
  private keptSent: KeptTurnParams | undefined;

  /** The child the thread is routed from now (undefined once let go). */
  get boundClient(): AppServerClient | undefined {
    return this.client;
  }

  /** The generation of the child the thread was last bound to (CodexHost.currentGeneration). */
  get generation(): number {
    return this.boundGeneration;
  }

  /** Whether the thread is routed from a child now. */
  get attached(): boolean {
    return this.detachAll !== undefined;
  }

  get adoptedCount(): number {
    return this.adopted.size;
  }

  /** Routes `threadId` from `client` (child `generation`) to `listener`, letting go of what was bound before. */
  bind(client: AppServerClient, generation: number, threadId: string, listener: ThreadListener): void {
    this.detachAll?.();
    const own = client.attachThread(threadId, listener);
    this.client = client;
    this.detachAll = () => {
      own();
      for (const off of this.adopted.values()) off();
      this.adopted.clear();
      this.client = undefined;
    };
    this.boundGeneration = generation;
    this.keptSent = undefined;
  }

  /** The live client with the thread loaded: after a child restart (or once let go), `reattach` resumes the thread on the new child and binds it. */
  async live(
    host: CodexHost,
    reattach: (client: AppServerClient, generation: number) => Promise<void>,
  ): Promise<AppServerClient> {
    const client = await host.client();
    const generation = host.currentGeneration;
    if (generation !== this.boundGeneration || !this.attached) await reattach(client, generation);
    return client;
  }

  /**
   * The kept turn settings a turn/start on `client` carries: none when the bound child has them
   * already. `sent` records that it got them (not if the thread was bound anew meanwhile).
   */
  keptParams(settings: ThreadSettings, client: AppServerClient): { params: KeptTurnParams; sent(): void } {
    const kept = keptTurnParams(settings, this.keptSent);
    const unchanged = this.keptSent !== undefined && JSON.stringify(kept) === JSON.stringify(this.keptSent);
    return {
      params: unchanged ? {} : kept,
      sent: () => {
        if (client === this.client) this.keptSent = kept;
      },
    };
  }

  /** Another kind of turn (a review, a compaction) may leave Codex's kept settings changed: the next turn/start carries them all. */
  forgetKeptParams(): void {
    this.keptSent = undefined;
  }

  /** Lets go of the thread and every adopted one. */
  detach(): void {
    this.detachAll?.();
    this.detachAll = undefined;
  }

  /** Routes another thread (a subagent's) to `listener` on the bound child; not the session's own (`own`), nor one adopted already. */
  adopt(threadId: string, own: string, listener: ThreadListener): void {
    if (!this.client || this.adopted.has(threadId) || threadId === own) return;
    this.adopted.set(threadId, this.client.attachThread(threadId, listener));
  }

  release(threadId: string): void {
    this.adopted.get(threadId)?.();
    this.adopted.delete(threadId);
  }
}
