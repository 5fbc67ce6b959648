/**
 * RFC 6570 URI templates (levels 1-4), as MCP resource templates use them: expansion, and matching a concrete URI
 * back to its variables. Parsed once per template; matching is one compiled regular expression plus, for query
 * operators, a split of the query string.
 */
export type UriVariables = Record<string, string | string[]>;

interface VarSpec {
  readonly name: string;
  readonly explode: boolean;
  readonly prefix: number | undefined;
}

interface Expression {
  readonly operator: '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';
  readonly vars: readonly VarSpec[];
}

type Part = string | Expression;

interface OperatorRules {
  readonly first: string;
  readonly separator: string;
  readonly named: boolean;
  readonly ifEmpty: string;
  readonly allowReserved: boolean;
}

// RFC 6570 appendix A, the table of operator behaviours.
const RULES: Record<Expression['operator'], OperatorRules> = {
  '': { first: '', separator: ',', named: false, ifEmpty: '', allowReserved: false },
  '+': { first: '', separator: ',', named: false, ifEmpty: '', allowReserved: true },
  '#': { first: '#', separator: ',', named: false, ifEmpty: '', allowReserved: true },
  '.': { first: '.', separator: '.', named: false, ifEmpty: '', allowReserved: false },
  '/': { first: '/', separator: '/', named: false, ifEmpty: '', allowReserved: false },
  ';': { first: ';', separator: ';', named: true, ifEmpty: '', allowReserved: false },
  '?': { first: '?', separator: '&', named: true, ifEmpty: '=', allowReserved: false },
  '&': { first: '&', separator: '&', named: true, ifEmpty: '=', allowReserved: false },
};

const MAX_TEMPLATE_LENGTH = 4096;
const MAX_URI_LENGTH = 64 * 1024;
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;

function parseExpression(body: string): Expression {
  const head = body[0] ?? '';
  const operator = ('+#./;?&'.includes(head) && head !== '' ? head : '') as Expression['operator'];
  const list = operator === '' ? body : body.slice(1);
  const vars = list.split(',').map((raw): VarSpec => {
    let name = raw;
    let explode = false;
    let prefix: number | undefined;
    if (name.endsWith('*')) {
      explode = true;
      name = name.slice(0, -1);
    } else {
      const colon = name.indexOf(':');
      if (colon !== -1) {
        prefix = Number(name.slice(colon + 1));
        name = name.slice(0, colon);
        if (!Number.isInteger(prefix) || prefix <= 0 || prefix >= 10000) {
          throw new SyntaxError(`invalid prefix modifier in {${body}}`);
        }
      }
    }
    if (!VARNAME.test(name))
      throw new SyntaxError(`invalid variable name ${JSON.stringify(name)} in {${body}}`);
    return { name, explode, prefix };
  });
  return { operator, vars };
}

function encode(value: string, allowReserved: boolean): string {
  if (!allowReserved)
    return encodeURIComponent(value).replace(
      /[!'()*]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    );
  // Reserved expansion keeps reserved characters and existing pct-encodings, encodes the rest.
  return value.replace(/%[0-9A-Fa-f]{2}|[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]+/g, (match) =>
    match.startsWith('%') && match.length === 3 ? match : encodeURI(match),
  );
}

function decode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class UriTemplate {
  readonly template: string;
  readonly #parts: readonly Part[];
  readonly #names: readonly string[];
  #matcher: { regex: RegExp; groups: Array<{ expression: Expression }> } | undefined;

  constructor(template: string) {
    if (template.length > MAX_TEMPLATE_LENGTH) throw new SyntaxError('URI template too long');
    this.template = template;
    const parts: Part[] = [];
    let index = 0;
    while (index < template.length) {
      const open = template.indexOf('{', index);
      if (open === -1) {
        parts.push(template.slice(index));
        break;
      }
      if (open > index) parts.push(template.slice(index, open));
      const close = template.indexOf('}', open);
      if (close === -1) throw new SyntaxError(`unclosed expression in URI template ${template}`);
      parts.push(parseExpression(template.slice(open + 1, close)));
      index = close + 1;
    }
    this.#parts = parts;
    this.#names = parts.flatMap((part) => (typeof part === 'string' ? [] : part.vars.map((v) => v.name)));
  }

  /** The variable names, in template order. */
  get variableNames(): readonly string[] {
    return this.#names;
  }

  static isTemplate(text: string): boolean {
    return /\{[^}]+\}/.test(text);
  }

  expand(variables: UriVariables): string {
    let out = '';
    for (const part of this.#parts)
      out += typeof part === 'string' ? part : expandExpression(part, variables);
    return out;
  }

  /** The variables of a URI this template produces, or undefined when it does not match. */
  match(uri: string): UriVariables | undefined {
    if (uri.length > MAX_URI_LENGTH) return undefined;
    const matcher = (this.#matcher ??= this.#compile());
    const found = matcher.regex.exec(uri);
    if (!found) return undefined;
    const result: UriVariables = {};
    for (let i = 0; i < matcher.groups.length; i++) {
      const captured = found[i + 1];
      const group = matcher.groups[i];
      if (captured === undefined || group === undefined) continue;
      if (!readExpression(group.expression, captured, result)) return undefined;
    }
    return result;
  }

  #compile(): { regex: RegExp; groups: Array<{ expression: Expression }> } {
    let source = '^';
    const groups: Array<{ expression: Expression }> = [];
    for (const part of this.#parts) {
      if (typeof part === 'string') {
        source += escapeRegExp(part);
        continue;
      }
      groups.push({ expression: part });
      source += captureFor(part);
    }
    return { regex: new RegExp(`${source}$`), groups };
  }
}

function captureFor(expression: Expression): string {
  switch (expression.operator) {
    case '':
      return '([^/?#]*)';
    case '+':
      return '([^?#]*)';
    case '#':
      return '(#.*)?';
    case '.':
      return '((?:\\.[^/?#.]*)*)';
    case '/':
      return '((?:/[^/?#]*)*)';
    case ';':
      return '((?:;[^/?#;]*)*)';
    case '?':
      return '(\\?[^#]*)?';
    case '&':
      return '(&[^#]*)?';
  }
}

/** Assigns the captured text of one expression to its variables; false when it cannot be read. */
function readExpression(expression: Expression, captured: string, into: UriVariables): boolean {
  if (captured === '') return true;
  const rules = RULES[expression.operator];
  if (rules.first !== '' && !captured.startsWith(rules.first)) return false;
  const body = captured.slice(rules.first.length);
  if (rules.named) return readNamed(expression, body, rules.separator, into);
  const vars = expression.vars;
  const only = vars.length === 1 ? vars[0] : undefined;
  if (only && !only.explode) {
    // Simple expansion encodes ',' inside a value, so a raw ',' separates list items; reserved expansion keeps
    // ',' as data. '.' and '/' expand one segment per variable.
    if ((expression.operator === '.' || expression.operator === '/') && body.includes(rules.separator))
      return false;
    const values = expression.operator === '' ? body.split(',') : [body];
    return assign(into, only.name, values, values.length > 1);
  }
  const pieces = body.split(rules.separator);
  for (let i = 0; i < vars.length; i++) {
    const spec = vars[i];
    if (!spec) continue;
    const isLast = i === vars.length - 1;
    if (isLast && spec.explode) return assign(into, spec.name, pieces.slice(i), true);
    const piece = pieces[i];
    if (piece === undefined) return true;
    if (!assign(into, spec.name, [piece], false)) return false;
  }
  return pieces.length <= vars.length;
}

function assign(into: UriVariables, name: string, raw: string[], asList: boolean): boolean {
  const values: string[] = [];
  for (const item of raw) {
    const value = decode(item);
    if (value === undefined) return false;
    values.push(value);
  }
  into[name] = asList ? values : (values[0] ?? '');
  return true;
}

function readNamed(expression: Expression, body: string, separator: string, into: UriVariables): boolean {
  if (body === '') return true;
  const known = new Map(expression.vars.map((v) => [v.name, v]));
  for (const pair of body.split(separator)) {
    const eq = pair.indexOf('=');
    const name = decode(eq === -1 ? pair : pair.slice(0, eq));
    const raw = eq === -1 ? '' : pair.slice(eq + 1);
    // Unknown keys in the query are not ours to interpret: ignore them.
    if (name === undefined || !known.has(name)) continue;
    const spec = known.get(name);
    const values = (spec?.explode ? [raw] : raw.split(',')).map(decode);
    if (values.some((v) => v === undefined)) return false;
    // A repeated key appends in place: copying the list per key made matching quadratic in the URI's length.
    const previous = into[name];
    if (previous === undefined) into[name] = values.length > 1 ? (values as string[]) : (values[0] as string);
    else if (Array.isArray(previous)) for (const value of values as string[]) previous.push(value);
    else into[name] = [previous, ...(values as string[])];
  }
  return true;
}

function expandExpression(expression: Expression, variables: UriVariables): string {
  const rules = RULES[expression.operator];
  const pieces: string[] = [];
  for (const spec of expression.vars) {
    const value = variables[spec.name];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    pieces.push(expandVariable(spec, value, rules));
  }
  return pieces.length === 0 ? '' : rules.first + pieces.join(rules.separator);
}

function expandVariable(spec: VarSpec, value: string | string[], rules: OperatorRules): string {
  const named = (text: string) => {
    if (!rules.named) return text;
    return text === '' ? `${spec.name}${rules.ifEmpty}` : `${spec.name}=${text}`;
  };
  if (typeof value === 'string') {
    const cut = spec.prefix === undefined ? value : [...value].slice(0, spec.prefix).join('');
    return named(encode(cut, rules.allowReserved));
  }
  if (!spec.explode) return named(value.map((v) => encode(v, rules.allowReserved)).join(','));
  return value
    .map((v) => {
      const encoded = encode(v, rules.allowReserved);
      return rules.named
        ? encoded === ''
          ? `${spec.name}${rules.ifEmpty}`
          : `${spec.name}=${encoded}`
        : encoded;
    })
    .join(rules.separator);
}
