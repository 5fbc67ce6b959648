/**
 * agentforge/extensions/skills: the skills extension (SEP-2640, `io.modelcontextprotocol/skills`): Agent Skills
 * served as `skill://` resources with skills/list and skills/get, and their verified loading on the client.
 */
export {
  type RegisterSkillOptions,
  SkillsExtension,
  type SkillsServerOptions,
  useSkills,
} from './server.js';
export {
  FrontmatterError,
  MAX_SKILL_BYTES,
  MAX_SKILL_RESOURCES,
  SKILLS_EXTENSION_ID,
  SkillMethod,
  type SkillEntry,
  type SkillResource,
  digestOf,
  frontmatterDifferences,
  isSkillName,
  parseFrontmatter,
} from './wire.js';
export {
  LoadedSkill,
  SkillVerificationError,
  type SkillVerificationFailure,
  SkillsClient,
  readSkillEntry,
} from './client.js';
