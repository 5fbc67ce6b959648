/** RFC 6570 expansion (examples from the RFC's section 3) and matching back to variables. */
import { describe, expect, it } from 'vitest';
import { UriTemplate } from '../../src/mcp/uri-template.js';

const vars = {
  var: 'value',
  hello: 'Hello World!',
  path: '/foo/bar',
  list: ['red', 'green', 'blue'],
  x: '1024',
  y: '768',
  empty: '',
};

describe('expansion (RFC 6570 section 3.2 examples)', () => {
  const cases: Array<[string, string]> = [
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    ['{+hello}', 'Hello%20World!'],
    ['{+path}/here', '/foo/bar/here'],
    ['{#hello}', '#Hello%20World!'],
    ['map?{x,y}', 'map?1024,768'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{/list*}', '/red/green/blue'],
    ['X{.var}', 'X.value'],
    ['{;x,y,empty}', ';x=1024;y=768;empty'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{var:3}', 'val'],
    ['{?list}', '?list=red,green,blue'],
    ['{?list*}', '?list=red&list=green&list=blue'],
    ['{?undefined}', ''],
  ];
  for (const [template, expected] of cases) {
    it(`${template} -> ${expected}`, () => {
      expect(new UriTemplate(template).expand(vars)).toBe(expected);
    });
  }
});

describe('matching', () => {
  it('reads simple, reserved, path, and query variables back', () => {
    expect(new UriTemplate('test://template/{id}/data').match('test://template/123/data')).toEqual({
      id: '123',
    });
    expect(new UriTemplate('file:///{+path}').match('file:///a/b/c.txt')).toEqual({ path: 'a/b/c.txt' });
    expect(new UriTemplate('repo://x{/segments*}').match('repo://x/a/b%20c')).toEqual({
      segments: ['a', 'b c'],
    });
    expect(
      new UriTemplate('search://q{?term,lang}').match('search://q?lang=en&term=hello%20world&other=1'),
    ).toEqual({
      term: 'hello world',
      lang: 'en',
    });
    expect(new UriTemplate('search://q{?term}').match('search://q')).toEqual({});
  });

  it('reads a query of many repeated keys in linear time (a hostile URI must not block the event loop)', () => {
    // 21,000 repeated keys in 63 KB (just under the 64 KB cap): copying the list per key took 1.7 s of CPU
    // here; linear matching takes a few milliseconds. CPU time, not wall time: on a loaded machine the wall
    // clock also counts the time this process waited for a core (535 ms once at load 11).
    const keys = 21_000;
    const uri = `q://x?${Array.from({ length: keys }, () => 'a=').join('&')}`;
    const started = process.cpuUsage();
    const matched = new UriTemplate('q://x{?a}').match(uri);
    const spent = process.cpuUsage(started);
    expect(matched?.a).toHaveLength(keys);
    expect((spent.user + spent.system) / 1000).toBeLessThan(300);
  });

  it('round-trips what it expands', () => {
    const template = new UriTemplate('users://{id}/posts{/year}{?tags}');
    const variables = { id: 'a b', year: '2026', tags: ['x', 'y'] };
    expect(template.match(template.expand(variables))).toEqual(variables);
  });

  it('does not match a different shape, an extra segment, or undecodable text', () => {
    const template = new UriTemplate('test://template/{id}/data');
    expect(template.match('test://template/1/2/data')).toBeUndefined();
    expect(template.match('test://other/1/data')).toBeUndefined();
    expect(template.match('test://template/%E0%A4%A/data')).toBeUndefined();
    expect(template.variableNames).toEqual(['id']);
  });

  it('rejects malformed templates', () => {
    expect(() => new UriTemplate('test://{unclosed')).toThrow(SyntaxError);
    expect(() => new UriTemplate('test://{bad name}')).toThrow(SyntaxError);
    expect(() => new UriTemplate('test://{x:0}')).toThrow(SyntaxError);
  });
});
