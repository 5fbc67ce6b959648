/**
 * The TypeScript type of the values a JSON Schema literal (written `as const`, or inline where a `const` type
 * parameter infers it) describes. Covers the keywords tool schemas use: `type` (one or an array, so
 * `['string', 'null']` is nullable), `properties`, `required`, `additionalProperties`, `items`, `enum`, `const`,
 * `anyOf`, `oneOf`. Keywords it does not map (`allOf`, `$ref`, `pattern`...) only narrow a schema, so ignoring
 * them gives a wider type, never a wrong one. A schema that is not a literal (typed `Record<string, unknown>`),
 * or one nested deeper than `MAX_DEPTH`, gives `unknown`; the mapper never yields `any`.
 */

/** Levels of nesting mapped before falling back to `unknown` (keeps the checker fast on deep schemas). */
type Budget = [never, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
type MAX_DEPTH = 10;

export type FromJsonSchema<Schema, Depth extends number = MAX_DEPTH> = [Depth] extends [never]
  ? unknown
  : Schema extends true
    ? unknown
    : Schema extends false
      ? never
      : Schema extends { readonly const: infer Value }
        ? Value
        : Schema extends { readonly enum: ReadonlyArray<infer Value> }
          ? Value
          : Schema extends { readonly anyOf: infer Options extends readonly unknown[] }
            ? OneOfOptions<Options, Budget[Depth]>
            : Schema extends { readonly oneOf: infer Options extends readonly unknown[] }
              ? OneOfOptions<Options, Budget[Depth]>
              : Schema extends { readonly type: infer Type }
                ? FromType<Type, Schema, Budget[Depth]>
                : Schema extends { readonly properties: object }
                  ? FromObject<Schema, Budget[Depth]>
                  : unknown;

/** One type per option, joined: `anyOf` and `oneOf` alike (exclusivity is not expressible). */
type OneOfOptions<Options extends readonly unknown[], Depth extends number> = {
  [Index in keyof Options]: FromJsonSchema<Options[Index], Depth>;
}[number];

type FromType<Type, Schema, Depth extends number> = Type extends readonly unknown[]
  ? FromTypeName<Type[number], Schema, Depth>
  : FromTypeName<Type, Schema, Depth>;

/** Distributes over a union of names (a `type` array); a widened `string` is not a literal: unknown. */
type FromTypeName<Name, Schema, Depth extends number> = string extends Name
  ? unknown
  : Name extends 'string'
    ? string
    : Name extends 'number' | 'integer'
      ? number
      : Name extends 'boolean'
        ? boolean
        : Name extends 'null'
          ? null
          : Name extends 'array'
            ? FromArray<Schema, Depth>
            : Name extends 'object'
              ? FromObject<Schema, Depth>
              : unknown;

type FromArray<Schema, Depth extends number> = Schema extends { readonly items: infer Items }
  ? Items extends readonly unknown[]
    ? unknown[]
    : Array<FromJsonSchema<Items, Depth>>
  : unknown[];

type FromObject<Schema, Depth extends number> = Schema extends { readonly properties: infer Properties }
  ? Properties extends Record<string, unknown>
    ? Simplify<
        DeclaredProperties<Properties, RequiredNames<Schema>, Depth> & AdditionalProperties<Schema, Depth>
      >
    : Record<string, unknown>
  : Schema extends { readonly additionalProperties: false }
    ? Record<string, never>
    : Record<string, unknown>;

type RequiredNames<Schema> = Schema extends { readonly required: ReadonlyArray<infer Name extends string> }
  ? string extends Name
    ? never
    : Name
  : never;

/** Listed properties, required ones without `?`; a required name with no property schema is `unknown`. */
type DeclaredProperties<Properties, Required extends string, Depth extends number> = {
  -readonly [Name in keyof Properties as Name extends Required ? Name : never]: FromJsonSchema<
    Properties[Name],
    Depth
  >;
} & {
  -readonly [Name in keyof Properties as Name extends Required ? never : Name]?: FromJsonSchema<
    Properties[Name],
    Depth
  >;
} & { [Name in Exclude<Required, keyof Properties>]: unknown };

/**
 * `additionalProperties: false` closes the object; anything else (absent, `true`, a schema) leaves other names
 * open, typed `unknown` so reading one is allowed but using it needs a check.
 */
type AdditionalProperties<Schema, _Depth extends number> = Schema extends {
  readonly additionalProperties: false;
}
  ? unknown
  : { [name: string]: unknown };

type Simplify<T> = { [Key in keyof T]: T[Key] } & {};
