// What counts as a credential, and what one redaction pass found. Its own file because it is the
// recognising half of redaction: names that say "credential" (a field's, an environment
// variable's, a query parameter's), the forms free text carries one in, and the Findings that
// remember each credential and file content found so redact.ts can scrub them wherever they
// recur. redact.ts holds the rules for where, in which message, to look.
import { normaliseMessage, type Placeholders } from "../normalise.js";
import { SECRET_MARKER, fileContentMarkerOf } from "./redaction-marker.js";
import { linesOf } from "./redact-chunks.js";
import { replaceSecretText, replaceUrlSecrets } from "../../../src/log/secret-text.js";

/** Shorter values are not scrubbed from other text: "1" or "dev" would take every such word with them. */
export const MIN_SCRUBBED_LENGTH = 8;

/** A key's words joined by "_": "accessToken", "ACCESS_TOKEN" and "access-token" all read "access_token". */
function wordsOf(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "")
    .join("_");
}

// "token" but not "tokens" (counts: maxTokens, outputTokens), "secret" but not "secretive".
const CREDENTIAL_WORDS =
  /(^|_)(api_?key|token|secrets?|passw(or)?d|passphrase|credentials?|authorization|cookie|bearer|private_?key|access_?key)(_|$)/;
// In an environment variable's name a bare KEY is a credential too (STRIPE_KEY); in a JSON key it is not.
const ENV_KEY_WORD = /(^|_)key(_|$)/;

// An environment variable's name runs words together (PGPASSWORD) and abbreviates (MYSQL_PWD,
// GITHUB_AUTH); PWD and OLDPWD alone are the working folder.
const ENV_CREDENTIAL_ENDING = /(passw(or)?d|_pwd|_auth|token|secret)$/;

/** Whether a field (or an environment variable, with `env`) is named like a credential. */
export function looksLikeCredential(name: string, env = false): boolean {
  const words = wordsOf(name);
  return (
    words === "auth" ||
    CREDENTIAL_WORDS.test(words) ||
    (env && (ENV_KEY_WORD.test(words) || ENV_CREDENTIAL_ENDING.test(words)))
  );
}

/** The content a file marker stands for, its digest over the portable text (see redaction-marker.ts). */
export function fileContentMarker(content: string, placeholders: Placeholders): string {
  return fileContentMarkerOf(content, normaliseMessage(content, placeholders) as string);
}

/**
 * `NAME=value`, `NAME: value`, `"name": "value"` at a line's start (optionally `export`), as files
 * assign settings: a quoted value whole (spaces, `#` and all), an unquoted one to its end.
 */
const ASSIGNMENT = String.raw`^[ \t]*(?:export[ \t]+)?["']?([A-Za-z_][\w.-]*)["']?[ \t]*[:=][ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^"'\s#,;]+))`;

/** An unquoted value that is code, not a literal (`z.string()`, `process.env.NAME`, `os.environ[...]`): not a credential to scrub elsewhere. */
const looksLikeCode = (value: string): boolean =>
  /[()[\]{}]/.test(value) || /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+$/.test(value);

/** What one pass found: credentials to scrub elsewhere, file contents with their markers. */
export class Findings {
  readonly secrets = new Set<string>();
  readonly contents = new Map<string, string>();
  constructor(private readonly placeholders: Placeholders) {}

  secret(value: string): string {
    if (value === SECRET_MARKER) return value;
    for (const part of [value, ...value.split(/\s+/)]) if (part.length >= MIN_SCRUBBED_LENGTH) this.secrets.add(part);
    return SECRET_MARKER;
  }

  content(value: string): string {
    let marker = this.contents.get(value);
    if (marker === undefined) {
      this.contents.set(value, (marker = fileContentMarker(value, this.placeholders)));
      this.credentialsIn(value);
    }
    return marker;
  }

  /** A file's credentials, scrubbed everywhere: values it assigns to credential names (`.env`, JSON, YAML), and free text's forms. */
  private credentialsIn(text: string): void {
    for (const [, name, doubled, single, bare] of text.matchAll(new RegExp(ASSIGNMENT, "gm"))) {
      const value = doubled ?? single ?? bare;
      if (value && looksLikeCredential(name!, true) && (bare === undefined || !looksLikeCode(bare))) this.secret(value);
    }
    redactText(text, this);
  }

  /** The lines of the file contents found that are long enough to say something (see MIN_SCRUBBED_LENGTH). */
  fileLines(): Set<string> {
    const lines = new Set<string>();
    for (const content of this.contents.keys()) {
      for (const { line } of linesOf(content))
        if (line.replace(/\s/g, "").length >= MIN_SCRUBBED_LENGTH) lines.add(line);
    }
    return lines;
  }
}

/**
 * A query parameter named as a credential, by the same words as any field, or a signature (a
 * signed address's `sig`, `X-Amz-Signature`): src/log/secret-text.ts has the forms.
 */
const credentialQuery = (name: string): boolean =>
  looksLikeCredential(name, true) || /(^|_)(sig|signature)(_|$)/.test(wordsOf(name));

/** An address with its userinfo and secret-looking query values replaced (the rest is kept: it says where). */
export function redactUrl(text: string, found: Findings): string {
  return replaceUrlSecrets(text, (secret) => found.secret(secret), credentialQuery);
}

/** Free text's credentials (an address's, a bearer token, an `sk-` key), each found. */
export function redactText(text: string, found: Findings): string {
  return replaceSecretText(text, (secret) => found.secret(secret), credentialQuery);
}
