/**
 * Offering MCP-served skills (SEP-2640) to the model. The host lists skills without reading them; when the
 * user (or the host's policy) picks one, `SkillsClient.load` reads and verifies its SKILL.md, and this module
 * renders the loaded skills as system-prompt context: each skill's origin server, URI, name, description and
 * verified instructions. Supporting files stay on the server until the model needs one; a host exposes them
 * through its resource-reading tool (`expose.resources`), and reads them with `LoadedSkill.readFile`, which
 * verifies each against the entry and refuses unlisted ones.
 *
 * ```ts
 * const skills = new SkillsClient(client);
 * const loaded = await skills.load((await skills.list())[0]);
 * const agent = new Agent({ model, host, system: `${base}\n\n${skillsContext([{ server: 'docs', skill: loaded }])}` });
 * ```
 */
import type { LoadedSkill } from '../extensions/skills/client.js';

export interface OfferedSkill {
  /** The host's label for the server the skill came from (SEP-2640: identity is server plus URI). */
  readonly server: string;
  readonly skill: LoadedSkill;
}

/** The loaded skills as one system-prompt block, in the order given. */
export function skillsContext(skills: readonly OfferedSkill[]): string {
  if (skills.length === 0) return '';
  const blocks = skills.map(({ server, skill }) =>
    [
      `<skill server="${escapeAttribute(server)}" uri="${escapeAttribute(skill.entry.uri)}" name="${escapeAttribute(skill.name)}">`,
      `Description: ${skill.description}`,
      'Relative paths in these instructions resolve against the skill URI without its SKILL.md.',
      skill.instructions.trimEnd(),
      '</skill>',
    ].join('\n'),
  );
  return [
    'The following skills are loaded. Follow a skill when the task matches its description.',
    ...blocks,
  ].join('\n\n');
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
