/**
 * The skills the suite's sep-2640-skills-* scenarios read (SEP-2640): the directories under conformance/skills
 * of the repository, served as skill:// resources with skills/list and skills/get.
 */
import { fileURLToPath } from 'node:url';
import { type SkillsExtension, useSkills } from '../extensions/skills/index.js';
import type { McpServer } from '../server/index.js';

/** conformance/skills, from src/conformance (tests) or dist/conformance (the built fixture) alike. */
export const FIXTURE_SKILLS_DIR = fileURLToPath(new URL('../../conformance/skills/', import.meta.url));

export async function skillResources(server: McpServer): Promise<SkillsExtension> {
  const skills = useSkills(server);
  await skills.registerSkill(`${FIXTURE_SKILLS_DIR}pdf-processing`);
  await skills.registerSkill(`${FIXTURE_SKILLS_DIR}git-workflow`);
  return skills;
}
