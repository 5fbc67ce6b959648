/**
 * The client fixture's part for the sep-2640-client-* scenarios (SEP-2640): list the server's skills without
 * reading any file; in the verify-* scenarios, the agent then loads the listed skill, which our SkillsClient
 * refuses when SKILL.md fails size, digest or frontmatter verification (and so never reads on).
 */
import type { McpClient } from '../client/client.js';
import { SkillVerificationError, SkillsClient } from '../extensions/skills/index.js';

/** True when the scenario was a skills one (and was handled here). */
export async function exerciseSkills(client: McpClient, scenario: string): Promise<boolean> {
  if (!scenario.startsWith('sep-2640-client-')) return false;
  const skills = new SkillsClient(client);
  if (!skills.supported) return true;
  const entries = await skills.list();
  // No prefetch: listing reads nothing. Only an agent that decides to use a skill loads it.
  if (scenario === 'sep-2640-client-no-prefetch') return true;
  for (const entry of entries) {
    try {
      const loaded = await skills.load(entry);
      for (const resource of entry.resources)
        if (resource.uri !== entry.uri) await loaded.readFile(resource.uri);
    } catch (error) {
      if (!(error instanceof SkillVerificationError)) throw error;
      console.error(`skill refused: ${error.message}`);
    }
  }
  return true;
}
