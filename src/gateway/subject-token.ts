/**
 * The one seam through which the caller's verified access token reaches gateway code: RFC 8693 token exchange
 * needs it as the `subject_token`. The downstream guard must keep it (`bearerAuth({ exposeToken: true })`);
 * `keepSubjectTokens` then takes it off the `authInfo` every handler, policy and audit entry sees, and files it
 * under that very object, where only `subjectTokenOf` (not exported from agentforge/gateway) finds it. So the
 * token goes to the token endpoint and nowhere else: never upstream (2026-07-28 basic/authorization, Token
 * Passthrough), never into a log.
 */
import type { HttpAuthGuard } from '../transports/http/server/auth.js';
import { isRecord } from '../util/record.js';

const tokens = new WeakMap<object, string>();

/** `guard`, its outcomes' `authInfo` without their `token`, the token kept aside for `subjectTokenOf`. */
export function keepSubjectTokens(guard: HttpAuthGuard): HttpAuthGuard {
  return {
    ...(guard.serve ? { serve: (request) => guard.serve!(request) } : {}),
    authorize: (authInfo, scopes) => guard.authorize(authInfo, scopes),
    async authenticate(request) {
      const outcome = await guard.authenticate(request);
      if (!outcome.ok || !isRecord(outcome.authInfo) || typeof outcome.authInfo.token !== 'string')
        return outcome;
      const { token, ...authInfo } = outcome.authInfo;
      tokens.set(authInfo, token as string);
      return { ...outcome, authInfo };
    },
  };
}

/** The verified access token the caller presented with this `authInfo`, for a token exchange only. */
export function subjectTokenOf(authInfo: unknown): string | undefined {
  return isRecord(authInfo) ? tokens.get(authInfo) : undefined;
}
