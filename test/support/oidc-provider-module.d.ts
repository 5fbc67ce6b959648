// The few parts of oidc-provider (v9, untyped JavaScript) the test harness uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface InteractionDetails {
    readonly uid: string;
    readonly prompt: { readonly name: string; readonly details: Record<string, unknown> };
    readonly params: Record<string, unknown>;
    readonly session?: { readonly accountId?: string };
    readonly grantId?: string;
  }

  export interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: readonly string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly issuer: string;
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    readonly Grant: {
      new (init: { accountId: string; clientId: string }): Grant;
      find(id: string): Promise<Grant | undefined>;
    };
    on(event: string, listener: (...args: unknown[]) => void): this;
    /** A grant at the token endpoint: `handler` answers with `ctx.body`; `params` are the ones it reads. */
    registerGrantType(
      name: string,
      handler: (ctx: GrantContext) => Promise<void>,
      params?: readonly string[],
    ): void;
    readonly AccessToken: new (
      init: Record<string, unknown>,
    ) => IssuedToken;
    readonly ResourceServer: new (
      identifier: string,
      info: Record<string, unknown>,
    ) => unknown;
  }

  export interface GrantContext {
    readonly oidc: {
      readonly params: Readonly<Record<string, string | undefined>>;
      readonly client: { readonly clientId: string };
      readonly provider: Provider;
    };
    body: unknown;
  }

  export interface IssuedToken {
    resourceServer: unknown;
    readonly expiration: number;
    readonly scope: string | undefined;
    save(): Promise<string>;
  }

  export const errors: {
    InvalidTarget: new (description?: string) => Error;
    InvalidGrant: new (description?: string) => Error;
    InvalidRequest: new (description?: string) => Error;
  };
}
