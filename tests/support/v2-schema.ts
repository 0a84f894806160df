// Every message an agent wrote to a v2 client, checked against the SDK's ACP v2 schema with the
// transcript runner's validator (tools/transcripts/schema.ts): requests and notifications whole,
// answers by their envelope (their request's method is the client's, not on this stdout).
import { loadAcpValidator } from "../../tools/transcripts/schema.js";

export async function v2Violations(stdoutLines: readonly string[]): Promise<string[]> {
  const validator = await loadAcpValidator(2);
  return stdoutLines.flatMap((line) => {
    const message: unknown = JSON.parse(line);
    return validator.validate("agent->client", message).map((v) => `${v.path}: ${v.message} in ${line.slice(0, 200)}`);
  });
}
