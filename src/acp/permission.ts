// The one permission round trip: session/request_permission on a tool call, with the user's
// choice mapped to an answer. Used for Codex's approval requests and for file-tool writes.
import * as acp from "@agentclientprotocol/sdk";
import type { AgentServices } from "./features.js";
import type { AcpSession } from "./session.js";

export type Choice<T> = { option: acp.PermissionOption; answer: T };

/**
 * Asks the client (after every update queued so far reached it, so the tool call is known)
 * and resolves with the chosen answer. A cancel of the prompt resolves it with `cancelled`
 * at once, whether or not the client ever answers.
 */
export async function askPermission<T>(
  session: AcpSession,
  services: AgentServices,
  toolCall: acp.ToolCallUpdate,
  choices: Choice<T>[],
  onError: T,
  cancelled: T,
): Promise<{ answer: T; optionId?: string }> {
  await session.flush();
  // The turn was cancelled (or the session closed) before Codex asked: ask nobody.
  if (session.cancelling) return { answer: cancelled };
  const controller = new AbortController();
  let hook!: () => void;
  const onCancel = new Promise<{ answer: T }>((resolve) => {
    hook = () => {
      controller.abort();
      resolve({ answer: cancelled });
    };
  });
  session.cancelHooks.add(hook);
  try {
    const asked = services
      .client()
      .request(
        acp.methods.client.session.requestPermission,
        { sessionId: session.id, toolCall, options: choices.map((c) => c.option) },
        { cancellationSignal: controller.signal, stopWaitingOnCancel: true },
      )
      .then(
        (res): { answer: T; optionId?: string } => {
          if (res.outcome.outcome !== "selected") return { answer: cancelled };
          const optionId = res.outcome.optionId;
          const choice = choices.find((c) => c.option.optionId === optionId);
          if (!choice) {
            services.log.warn({ sessionId: session.id, optionId }, "permission answer with an unknown option; declined");
            return { answer: onError };
          }
          return { answer: choice.answer, optionId };
        },
        (err: unknown) => {
          if (controller.signal.aborted) return { answer: cancelled };
          services.log.warn({ sessionId: session.id, err: String(err) }, "permission request failed; declined");
          return { answer: onError };
        },
      );
    return await Promise.race([asked, onCancel]);
  } finally {
    session.cancelHooks.delete(hook);
  }
}
