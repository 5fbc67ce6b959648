/**
 * The subset validator against ajv (the options schema.ts gives it), on seeded random schemas and instances:
 * the same verdict and the same first message (`<instancePath> <message>`), or the same thrown error.
 * A failure prints its seed, schema and instance; `SUBSET_SEED=<n>` reruns one seed.
 */
import { Ajv as Ajv07, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { AJV_OPTIONS } from '../../src/server/schema.js';
import { isSimpleSchema } from '../../src/server/schema-subset.js';
import { compileSubsetValidator } from '../../src/server/schema-validator.js';
import { anyValue, instanceFor, random, spoil, subschema } from './schema-generate.js';

const dialects = [new Ajv2020(AJV_OPTIONS), new Ajv2019(AJV_OPTIONS), new Ajv07(AJV_OPTIONS)];

/** What schema.ts reports for an ajv verdict. */
function ajvOutcome(validate: ValidateFunction, value: unknown): string {
  try {
    if (validate(value)) return 'valid';
    const [error] = validate.errors ?? [];
    if (error === undefined) return 'invalid without an error';
    const where = error.instancePath === '' ? '(root)' : error.instancePath;
    const extra =
      error.keyword === 'additionalProperties' ? ` '${String(error.params.additionalProperty)}'` : '';
    return `${where} ${error.message}${extra}`;
  } catch (error) {
    return `threw ${(error as Error).message}`;
  }
}

function subsetOutcome(check: ReturnType<typeof compileSubsetValidator>, value: unknown): string {
  try {
    return check(value) ?? 'valid';
  } catch (error) {
    return `threw ${(error as Error).message}`;
  }
}

const SCHEMAS_PER_SEED = 40;
const INSTANCES_PER_SCHEMA = 40;

/** Runs one seed; returns the counts of valid and invalid instances seen, so the test knows both were reached. */
function differential(seed: number): { valid: number; invalid: number; refused: number } {
  const rng = random(seed);
  const counts = { valid: 0, invalid: 0, refused: 0 };
  for (let s = 0; s < SCHEMAS_PER_SEED; s++) {
    const schema = subschema(rng, 0);
    // A generated `enum` may repeat a value (draft-07's meta-schema refuses it): such a schema is ajv's alone.
    if (!isSimpleSchema(schema)) {
      counts.refused++;
      continue;
    }
    const check = compileSubsetValidator(schema);
    const ajv = dialects[s % dialects.length] as Ajv2020;
    const validate = ajv.compile(schema as object);
    for (let n = 0; n < INSTANCES_PER_SCHEMA; n++) {
      const aimed = instanceFor(rng, schema);
      const value = n % 4 === 3 ? anyValue(rng) : rng.chance(0.4) ? spoil(rng, aimed) : aimed;
      const expected = ajvOutcome(validate, value);
      const actual = subsetOutcome(check, value);
      if (actual !== expected) {
        const where = `seed ${seed}, schema ${JSON.stringify(schema)}, instance ${JSON.stringify(value)}`;
        expect(actual, where).toBe(expected);
      }
      counts[expected === 'valid' ? 'valid' : 'invalid']++;
    }
  }
  return counts;
}

describe('the subset validator gives ajv verdicts and first messages', () => {
  const only = process.env.SUBSET_SEED;
  const seeds = only ? [Number(only)] : Array.from({ length: 40 }, (_, i) => 1000 + i);

  it(`agrees with ajv on ${seeds.length * SCHEMAS_PER_SEED} random schemas, ${INSTANCES_PER_SCHEMA} instances each`, () => {
    const total = { valid: 0, invalid: 0, refused: 0 };
    for (const seed of seeds) {
      const counts = differential(seed);
      total.valid += counts.valid;
      total.invalid += counts.invalid;
      total.refused += counts.refused;
    }
    expect(total.refused).toBeLessThan((seeds.length * SCHEMAS_PER_SEED) / 10);
    // Both verdicts are exercised in earnest, not one of them by accident.
    expect(total.valid).toBeGreaterThan(total.invalid / 4);
    expect(total.invalid).toBeGreaterThan(total.valid / 4);
  });
});
