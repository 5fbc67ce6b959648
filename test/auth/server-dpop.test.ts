/**
 * DPoP-bound access tokens at our resource server (RFC 9449 sections 4.3 and 7): oidc-provider binds a
 * client_credentials token to an ES256 key (`cnf.jkt`); every request must then carry a fresh proof by that key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DpopKey, dpopProof, generateDpopKey } from '../support/oidc-provider.js';
import { type Protected, bearer, call, metadataUrlOf, startProtected } from './support.js';

let p: Protected;
let key: DpopKey;
let token: string;

beforeAll(async () => {
  p = await startProtected();
  key = await generateDpopKey();
  const issued = await p.as.clientCredentials({ resource: p.url, scope: 'mcp:tools', dpop: key });
  expect(issued.token_type).toBe('DPoP');
  token = issued.access_token;
});

afterAll(async () => {
  await p?.[Symbol.asyncDispose]();
});

const whoami = { name: 'whoami', arguments: {} };

function proof(overrides: Partial<Parameters<typeof dpopProof>[1]> = {}, signer: DpopKey = key) {
  return dpopProof(signer, { htm: 'POST', htu: p.url, accessToken: token, ...overrides });
}

async function expectProofRefused(dpop: string | undefined, description: string): Promise<void> {
  const response = await call(
    p.url,
    'tools/call',
    whoami,
    `DPoP ${token}`,
    dpop === undefined ? {} : { dpop },
  );
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe(
    `DPoP error="invalid_dpop_proof", error_description="${description}", resource_metadata="${metadataUrlOf(p.url)}", algs="ES256 RS256 PS256 EdDSA"`,
  );
}

describe('DPoP-bound access tokens', () => {
  it('accepts the token with the DPoP scheme and a proof by the bound key', async () => {
    const response = await call(p.url, 'tools/call', whoami, `DPoP ${token}`, { dpop: await proof() });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { structuredContent: Record<string, unknown> } };
    expect(body.result.structuredContent).toMatchObject({ subject: 'mcp-machine', sawCredentials: false });
  });

  it('refuses a replayed proof (same jti)', async () => {
    const once = await proof();
    expect((await call(p.url, 'tools/call', whoami, `DPoP ${token}`, { dpop: once })).status).toBe(200);
    await expectProofRefused(once, 'the DPoP proof was already used');
  });

  it('refuses a missing proof, and proofs for another method, URL, token, key or time', async () => {
    await expectProofRefused(undefined, 'a DPoP proof is required');
    await expectProofRefused(await proof({ htm: 'GET' }), 'the DPoP proof is for another method');
    await expectProofRefused(
      await proof({ htu: `${new URL(p.url).origin}/other` }),
      'the DPoP proof is for another URL',
    );
    await expectProofRefused(
      await proof({ accessToken: `${token}x` }),
      'the DPoP proof is not for this access token',
    );
    await expectProofRefused(
      await proof({}, await generateDpopKey()),
      'the DPoP proof key is not the one the token is bound to',
    );
    await expectProofRefused(
      await proof({ iat: Math.floor(Date.now() / 1000) - 300 }),
      'the DPoP proof is too old or from the future',
    );
    await expectProofRefused('a.b.c', 'the DPoP proof is invalid');
    const two = `${await proof()}, ${await proof()}`;
    await expectProofRefused(two, 'exactly one DPoP proof is required');
  });

  it('ignores the query string in htu (RFC 9449 section 4.3)', async () => {
    const response = await call(p.url, 'tools/call', whoami, `DPoP ${token}`, {
      dpop: await proof({ htu: `${p.url}?ignored=1` }),
    });
    expect(response.status).toBe(200);
  });

  it('refuses a bound token presented as a plain Bearer token', async () => {
    const response = await call(p.url, 'tools/call', whoami, bearer(token), { dpop: await proof() });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      'error_description="a DPoP-bound access token needs the DPoP scheme"',
    );
  });

  it('challenges an invalid token sent with the DPoP scheme in that scheme', async () => {
    const forged = `${token.slice(0, -4)}AAAA`;
    const response = await call(p.url, 'tools/call', whoami, `DPoP ${forged}`, {
      dpop: await dpopProof(key, { htm: 'POST', htu: p.url, accessToken: forged }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `DPoP error="invalid_token", error_description="the access token is invalid", resource_metadata="${metadataUrlOf(p.url)}", algs="ES256 RS256 PS256 EdDSA"`,
    );
  });

  it('refuses an unbound token presented with the DPoP scheme', async () => {
    const plain = await p.token();
    const response = await call(p.url, 'tools/call', whoami, `DPoP ${plain}`, {
      dpop: await dpopProof(key, { htm: 'POST', htu: p.url, accessToken: plain }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('the access token is not DPoP-bound');
  });

  it('challenges a missing scope under the DPoP scheme', async () => {
    const response = await call(p.url, 'tools/call', { name: 'purge', arguments: {} }, `DPoP ${token}`, {
      dpop: await proof(),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^DPoP error="insufficient_scope", .*scope="mcp:admin"$/,
    );
  });
});

describe('a server that requires DPoP', () => {
  it('publishes dpop_bound_access_tokens_required and refuses bearer tokens with a DPoP challenge', async () => {
    await using q = await startProtected({ guard: { dpop: { required: true, algorithms: ['ES256'] } } });
    const metadata = (await (await fetch(metadataUrlOf(q.url))).json()) as Record<string, unknown>;
    expect(metadata.dpop_bound_access_tokens_required).toBe(true);
    expect(metadata.dpop_signing_alg_values_supported).toEqual(['ES256']);
    const missing = await call(q.url, 'tools/list', {});
    expect(missing.headers.get('www-authenticate')).toBe(
      `DPoP resource_metadata="${metadataUrlOf(q.url)}", algs="ES256"`,
    );
    const plain = await call(q.url, 'tools/list', {}, bearer(await q.token()));
    expect(plain.status).toBe(401);
    expect(plain.headers.get('www-authenticate')).toContain('the access token is not DPoP-bound');
  });
});

describe('a server that issues DPoP nonces', () => {
  it('answers a proof without the nonce use_dpop_nonce with a DPoP-Nonce, then accepts it with that nonce', async () => {
    await using q = await startProtected({ guard: { dpop: { nonce: true } } });
    const bound = await generateDpopKey();
    const { access_token } = await q.as.clientCredentials({
      resource: q.url,
      scope: 'mcp:tools',
      dpop: bound,
    });
    const send = async (nonce?: string) =>
      call(q.url, 'tools/list', {}, `DPoP ${access_token}`, {
        dpop: await dpopProof(bound, {
          htm: 'POST',
          htu: q.url,
          accessToken: access_token,
          ...(nonce === undefined ? {} : { nonce }),
        }),
      });
    const first = await send();
    expect(first.status).toBe(401);
    expect(first.headers.get('www-authenticate')).toMatch(/^DPoP error="use_dpop_nonce", /);
    const nonce = first.headers.get('dpop-nonce');
    expect(nonce).toMatch(/^[a-z0-9]+\.[A-Za-z0-9_-]{32}$/);
    expect((await send(nonce as string)).status).toBe(200);
    const forged = await send(`${(nonce as string).split('.')[0]}.${'A'.repeat(32)}`);
    expect(forged.status).toBe(401);
    expect(forged.headers.get('www-authenticate')).toContain('use_dpop_nonce');
  });
});
