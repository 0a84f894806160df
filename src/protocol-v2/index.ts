// ACP v2 beside v1: loaded only when a client asks for protocol 2 at initialize (its SDK schema
// costs ~35 ms to load, which a v1 client never pays). The SDK's protocol router negotiates;
// the v1 agent serves both, a v2 client through the front (front.ts).
import * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type * as v1 from "@agentclientprotocol/sdk/unstable";
import type { Logger } from "../log/index.js";
import { v2Front } from "./front.js";

export function connectNegotiated(stream: v2.Stream, agent: v1.AgentApp, log: Logger): { closed: Promise<void> } {
  return v2.agentProtocolRouter().withV1(agent).withV2(v2Front(agent, log)).connect(stream);
}
