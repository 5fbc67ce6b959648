/**
 * The Standard Schema interface (https://standardschema.dev, v1), declared here as its spec asks libraries to do
 * (copy the types, take no runtime dependency). zod 4, valibot and arktype schemas all satisfy it. The optional
 * `jsonSchema` member is the Standard JSON Schema converter some vendors add beside it.
 */

/** A schema of any Standard Schema vendor: `Input` is what it accepts, `Output` what validation returns. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaProps<Input, Output>;
}

export interface StandardSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  validate(value: unknown): StandardResult<Output> | Promise<StandardResult<Output>>;
  /** Types only: never set at runtime, read by `InferInput` / `InferOutput`. */
  readonly types?: StandardTypes<Input, Output> | undefined;
  /** Standard JSON Schema: the vendor's own converter to JSON Schema. */
  readonly jsonSchema?: {
    input?(options: { target: string }): unknown;
    output?(options: { target: string }): unknown;
  };
}

export interface StandardTypes<Input = unknown, Output = Input> {
  readonly input: Input;
  readonly output: Output;
}

export type StandardResult<Output = unknown> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** What a Standard Schema accepts (`~standard.types.input`). */
export type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['input'];

/** What a Standard Schema's validation returns (`~standard.types.output`). */
export type InferOutput<Schema extends StandardSchemaV1> = NonNullable<
  Schema['~standard']['types']
>['output'];
