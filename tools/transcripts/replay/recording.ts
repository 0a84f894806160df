// The recording, indexed for matching: every agent message it expects (by response id, by
// request method, by notification stream), and the client's recorded answers to agent requests.
import type { LocatedEntry, Transcript } from "../format.js";
import { RepeatedSnapshots, idKey, isAdvisory, kindOf, labelOf, sessionIdOf, streamKey } from "./messages.js";

/** One agent message the recording expects, and whether a live one matched it yet. */
export interface RecordedAgent {
  entry: LocatedEntry;
  /** Position among all entries. */
  pos: number;
  matched: boolean;
  label: string;
}

export class RecordingIndex {
  /** Every expected agent message, in recorded order. */
  readonly agent: RecordedAgent[] = [];
  readonly responses = new Map<string, RecordedAgent>();
  readonly requests = new Map<string, RecordedAgent[]>();
  readonly streams = new Map<string, RecordedAgent[]>();
  readonly raw: RecordedAgent[] = [];
  /** The client's recorded answers to agent requests, by the request's recorded id. */
  readonly clientResponses = new Map<string, LocatedEntry>();

  constructor(transcript: Transcript) {
    const entries = transcript.entries;
    const clientRequestMethods = new Map<string, string>();
    const snapshots = new RepeatedSnapshots();
    for (const entry of entries) {
      if (entry.type === "message" && entry.dir === "client->agent" && kindOf(entry.msg) === "request") {
        clientRequestMethods.set(idKey(entry.msg.id), String(entry.msg.method));
      }
    }
    entries.forEach((entry, pos) => {
      if (entry.dir === "client->agent") {
        if (entry.type === "message" && kindOf(entry.msg) === "response")
          this.clientResponses.set(idKey(entry.msg.id), entry);
        return;
      }
      if (entry.type === "raw") {
        const rec = { entry, pos, matched: false, label: labelOf(entry) };
        this.agent.push(rec);
        this.raw.push(rec);
        return;
      }
      const msg = entry.msg;
      if (isAdvisory(msg) || snapshots.isRepeat(msg)) return;
      const kind = kindOf(msg);
      const rec: RecordedAgent = {
        entry,
        pos,
        matched: false,
        label: labelOf(entry, clientRequestMethods.get(idKey(msg.id))),
      };
      this.agent.push(rec);
      if (kind === "response") this.responses.set(idKey(msg.id), rec);
      else if (kind === "request") push(this.requests, String(msg.method), rec);
      else push(this.streams, streamKey(String(msg.method), sessionIdOf(msg)), rec);
    });
  }

  /** Expected agent messages not matched yet. */
  unmatched(): RecordedAgent[] {
    return this.agent.filter((r) => !r.matched);
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
