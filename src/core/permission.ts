// The one permission round trip: session/request_permission on a tool call, with the user's
// choice mapped to an answer. Used for Codex's approval requests and for file-tool writes.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { askClient } from "./ask.js";
import type { AgentServices } from "./feature-api.js";
import type { AcpSession } from "./session/session.js";

export type Choice<T> = { option: acp.PermissionOption; answer: T };

/** A permission question: the tool call it is about, the choices offered (their answers type it), and the answers when none is chosen. */
export type PermissionQuestion<T> = {
  toolCall: acp.ToolCallUpdate;
  choices: Choice<T>[];
  /** The answer when the client fails, or answers with an option it was not offered. */
  onError: NoInfer<T>;
  /** The answer when the prompt is cancelled (the turn's cancel, or `withdraw`). */
  cancelled: NoInfer<T>;
  /** Withdraws the question when it fires (the call it belongs to was given up on). */
  withdraw?: AbortSignal | undefined;
};

/** Asks the client and resolves with the chosen answer (or `onError`, `cancelled`: PermissionQuestion). */
export async function askPermission<T>(
  session: AcpSession,
  services: AgentServices,
  { toolCall, choices, onError, cancelled, withdraw }: PermissionQuestion<T>,
): Promise<{ answer: T; optionId?: string }> {
  try {
    const asked = await askClient(session, withdraw, (signal) =>
      services
        .client()
        .request(
          acp.methods.client.session.requestPermission,
          { sessionId: session.id, toolCall, options: choices.map((c) => c.option) },
          { cancellationSignal: signal, stopWaitingOnCancel: true },
        ),
    );
    if (asked.cancelled || asked.answer.outcome.outcome !== "selected") return { answer: cancelled };
    const optionId = asked.answer.outcome.optionId;
    const choice = choices.find((c) => c.option.optionId === optionId);
    if (!choice) {
      services.log.warn({ sessionId: session.id, optionId }, "permission answer with an unknown option; declined");
      return { answer: onError };
    }
    return { answer: choice.answer, optionId };
  } catch (err) {
    services.log.warn({ sessionId: session.id, err: String(err) }, "permission request failed; declined");
    return { answer: onError };
  }
}
