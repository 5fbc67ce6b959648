import {
  type Path,
  anyType,
  createCodegen,
  fail,
  typeTest,
  typesOf,
  type Codegen,
} from './schema-codegen.js';
import {
  GROUP_KEYWORDS,
  arrayCode,
  constCode,
  enumCode,
  numberCode,
  objectCode,
  stringCode,
} from './schema-keywords.js';

/**
 * Validators for the everyday subset of JSON Schema that `isSimpleSchema` vouches for, compiled without ajv:
 * loading ajv and generating its code costs a tool server about 7 MB and the first call's latency, for
 * schemas of a few `type`/`properties`/`required` keywords.
 *
 * The verdicts and the first error are ajv's (ajv 8 with strict false, allErrors false, validateFormats
 * false), in every dialect the server accepts (the keywords below mean the same in draft-07, 2019-09 and
 * 2020-12). ajv stops at the first failing keyword, in this order: the `type` check (deferred to the end of
 * its group when the schema has keywords for that one type), then `const` and `enum`, then the number,
 * string, array and object keywords, each group only for an instance of its type. Instance members are read
 * as ajv's generated code reads them (`data[name] !== undefined`, `for...in`), so inherited names such as
 * `constructor` count as present alike.
 *
 * Like ajv, it generates one function per schema: straight-line code with named member reads is what makes
 * ajv's validators fast, and what keeps this one as fast.
 */
export type SubsetValidator = (data: unknown) => string | undefined;

/** The validator of a schema `isSimpleSchema` has vouched for: undefined, or `<instancePath> <message>`. */
export function compileSubsetValidator(schema: unknown): SubsetValidator {
  const gen = createCodegen();
  const node = (subschema: unknown, value: string, path: Path): string =>
    nodeCode(gen, subschema, value, path, node);
  const body = node(schema, 'data', []);
  const source = `${gen.prologue()}\nreturn function validate(data) {\n${body}\nreturn undefined;\n};`;
  return new Function('refs', source)(gen.refs) as SubsetValidator;
}

type Node = (schema: unknown, value: string, path: Path) => string;
type GroupType = keyof typeof GROUP_KEYWORDS;

/** Code that returns the failure text when `value` fails `schema`; '' when the schema accepts everything. */
function nodeCode(gen: Codegen, schema: unknown, value: string, path: Path, node: Node): string {
  if (schema === false) return fail(path, { text: 'boolean schema is false' });
  if (typeof schema !== 'object' || schema === null) return '';
  const record = schema as Record<string, unknown>;
  const types = typesOf(record);
  const used = (group: GroupType) => GROUP_KEYWORDS[group].some((keyword) => record[keyword] !== undefined);
  const only = types.length === 1 ? (types[0] as string) : undefined;
  // ajv checks a single type inside that type's group (after const and enum) when the schema has keywords
  // for it, and up front otherwise.
  const deferred = only !== undefined && Object.hasOwn(GROUP_KEYWORDS, only) && used(only as GroupType);
  const typeError = fail(path, { text: `must be ${String(record.type)}` });
  const code: string[] = [];
  if (types.length > 0 && !deferred) code.push(`if (!(${anyType(types, value)})) ${typeError}`);
  code.push(constCode(gen, record.const, value, path));
  code.push(enumCode(gen, record.enum, value, path));
  const groups: Record<GroupType, () => string> = {
    number: () => numberCode(record, value, path),
    string: () => stringCode(gen, record, value, path),
    array: () => arrayCode(gen, record, value, path, node),
    object: () => objectCode(gen, record, value, path, node),
  };
  for (const group of Object.keys(groups) as GroupType[]) {
    if (!used(group)) continue;
    const inner = groups[group]();
    const otherwise = deferred && group === only ? typeError : '';
    if (inner === '' && otherwise === '') continue;
    code.push(`if (${typeTest(group, value)}) {\n${inner}\n}${otherwise === '' ? '' : ` else ${otherwise}`}`);
  }
  return code.filter((line) => line !== '').join('\n');
}
