// session/list: Codex's thread list (`thread/list`), newest first, a page at a time, with ACP's
// unstable archive filter. Codex lists either its unarchived or its archived threads, so
// `include` walks the unarchived ones, then the archived ones (a page that ends the first part
// is filled from the second); its cursor says which part it is in. Every session listed says
// whether it is archived (ACP asks that of an agent that advertises archive).
import { normalizedDirectory } from "../platform/index.js";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import { CodexRpcError, threadSchema, type AppServerClient } from "../codex/index.js";
import { isoTime, threadTitle } from "../core/index.js";
import { invalidParams, shown } from "../core/index.js";
import { JsonRpcCode } from "../json-rpc/index.js";

const threadListResponseSchema = z.looseObject({
  data: z.array(threadSchema),
  nextCursor: z.string().nullish(),
});

/** The two parts of an `include` listing, and the prefix of its cursors (Codex's own cursors follow it). */
const INCLUDE_CURSOR = { unarchived: "include:unarchived:", archived: "include:archived:" } as const;

type Part = { archived: boolean; cursor: string | undefined };

function sessionInfo(thread: z.infer<typeof threadSchema>, archived: boolean): acp.SessionInfo {
  return {
    sessionId: thread.id,
    cwd: thread.cwd,
    title: threadTitle(thread) ?? null,
    updatedAt: isoTime(thread.updatedAt) ?? null,
    archived,
  };
}

/** Where an `include` listing goes on from: its cursor's part and Codex's cursor in it. */
function includePart(cursor: string | null | undefined): Part {
  if (!cursor) return { archived: false, cursor: undefined };
  for (const archived of [false, true]) {
    const prefix = archived ? INCLUDE_CURSOR.archived : INCLUDE_CURSOR.unarchived;
    if (cursor.startsWith(prefix)) return { archived, cursor: cursor.slice(prefix.length) || undefined };
  }
  throw acp.RequestError.invalidParams(
    { cursor },
    "Invalid cursor: not one of this listing's (keep the same archived filter when following nextCursor)",
  );
}

/** The cwd filter, checked and normalised as Codex stores cwds. */
function cwdFilter(cwd: string | null | undefined): string | undefined {
  if (!cwd) return undefined;
  if (!path.isAbsolute(cwd)) throw invalidParams({ cwd }, `cwd must be an absolute path: ${shown(cwd)}`);
  // Without a trailing separator, but a root keeps its own (C:\ is not C:, that drive's current folder).
  return normalizedDirectory(cwd);
}

/** Answers one session/list request from Codex's thread list, `pageSize` sessions at most; Codex's own errors are thrown as they are. */
export async function listSessions(
  client: AppServerClient,
  params: acp.ListSessionsRequest,
  pageSize: number,
): Promise<acp.ListSessionsResponse> {
  const cwd = cwdFilter(params.cwd);
  const filter = params.archived ?? "exclude";
  if (filter !== "exclude" && filter !== "only" && filter !== "include") {
    throw invalidParams(
      { archived: filter },
      `Unknown archived filter "${shown(String(filter))}": use exclude, include or only`,
    );
  }
  const page = async (part: Part, limit: number) => {
    try {
      return await client.call(
        "thread/list",
        {
          limit,
          sortKey: "updated_at",
          sortDirection: "desc",
          archived: part.archived,
          ...(cwd ? { cwd } : {}),
          ...(part.cursor ? { cursor: part.cursor } : {}),
        },
        threadListResponseSchema,
      );
    } catch (err) {
      if (part.cursor && err instanceof CodexRpcError && err.code !== JsonRpcCode.InternalError) {
        throw acp.RequestError.invalidParams({ cursor: params.cursor }, `Invalid cursor: ${err.message}`);
      }
      // As it is: the caller asks a new codex once when this one died (readFromCodex).
      throw err;
    }
  };
  if (filter !== "include") {
    const archived = filter === "only";
    const listed = await page({ archived, cursor: params.cursor ?? undefined }, pageSize);
    return { sessions: listed.data.map((t) => sessionInfo(t, archived)), nextCursor: listed.nextCursor ?? null };
  }
  const from = includePart(params.cursor);
  const listed = await page(from, pageSize);
  const sessions = listed.data.map((t) => sessionInfo(t, from.archived));
  if (from.archived)
    return { sessions, nextCursor: listed.nextCursor ? INCLUDE_CURSOR.archived + listed.nextCursor : null };
  if (listed.nextCursor) return { sessions, nextCursor: INCLUDE_CURSOR.unarchived + listed.nextCursor };
  // The unarchived part ended: the archived part goes on from here, filling this page first.
  if (sessions.length >= pageSize) return { sessions, nextCursor: INCLUDE_CURSOR.archived };
  const archived = await page({ archived: true, cursor: undefined }, pageSize - sessions.length);
  sessions.push(...archived.data.map((t) => sessionInfo(t, true)));
  return { sessions, nextCursor: archived.nextCursor ? INCLUDE_CURSOR.archived + archived.nextCursor : null };
}
