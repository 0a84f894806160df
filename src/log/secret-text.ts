// What a credential looks like inside free text (an error message, a log line, a line of a
// transcript that is not JSON): an `sk-`-style key, a bearer token (or an Authorization header's
// other schemes), a URL's userinfo, a query value named as a credential. One set of forms for the agent's logs and answers (withoutSecrets,
// core/errors.ts) and for what `record` leaves out of a transcript (tools/transcripts/redaction/):
// a form one of them misses, both miss, and one mend covers both.

/** Gives what stands in a secret's place (its lead, `sk-` or `Bearer `, is kept before it). */
export type SecretReplacer = (secret: string) => string;

/** A query parameter's name that says its value is a credential (`token`, `api_key`, `sig`...). */
const SECRET_QUERY_NAME = /token|key|secret|passw(?:or)?d|pwd|auth|sig|credential/i;
const isSecretQueryName = (name: string): boolean => SECRET_QUERY_NAME.test(name);

/** A URL's whole userinfo (`user:password@`, a token alone, a password with an `@` in it) and its credential query values. */
export function replaceUrlSecrets(
  text: string,
  replace: SecretReplacer,
  isSecretName: (name: string) => boolean = isSecretQueryName,
): string {
  return text
    .replace(
      /(\w+:\/\/)((?:[^\s/?#@]*@)+)/g,
      (_m, head: string, userinfo: string) => `${head}${replace(userinfo.slice(0, -1))}@`,
    )
    .replace(/([?&]([\w.-]+)=)([^&#\s)"']+)/g, (m, head: string, name: string, value: string) =>
      isSecretName(name) ? `${head}${replace(value)}` : m,
    );
}

/** Every form above in `text`, each secret given to `replace`. */
export function replaceSecretText(
  text: string,
  replace: SecretReplacer,
  isSecretName?: (name: string) => boolean,
): string {
  return (
    replaceUrlSecrets(text, replace, isSecretName)
      .replace(/\b(sk|rk|sess)-([\w*.-]*[\w*])/gi, (_m, kind: string, key: string) => `${kind}-${replace(key)}`)
      .replace(/\b(Bearer\s+)([\w*.~+/=-]+)/gi, (_m, head: string, token: string) => `${head}${replace(token)}`)
      // An Authorization header's other schemes (GitHub's `token X`, `Basic X`, `ApiKey X`) or none,
      // as a log line or JSON writes it; Bearer's is above.
      .replace(
        /\b(authorization["']?\s*[:=]\s*["']?(?!bearer\b)(?:[a-z][\w-]*\s+)?)([\w*.~+/=:-]{6,})/gi,
        (_m, head: string, credential: string) => `${head}${replace(credential)}`,
      )
  );
}
