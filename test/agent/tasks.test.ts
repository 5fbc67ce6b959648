/**
 * The agent host with the tasks extension (SEP-2663): a fake model asks, in one turn, for a long task-backed
 * tool and two quick ones on a real server over stdio. The quick results come back while the task still runs
 * (its call shows as running through host `task` events), the task's result reaches the model when it ends,
 * and a task's input request goes through the host's elicitation handler, as MRTR input does. A skill
 * loaded and verified from a server reaches the model as system context.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import type { HostEvent } from '../../src/agent/host.js';
import { skillsContext } from '../../src/agent/skills.js';
import { McpClient } from '../../src/client/client.js';
import { SkillsClient, useSkills } from '../../src/extensions/skills/index.js';
import { McpServer } from '../../src/server/index.js';
import { readToolResults } from '../support/fake-providers/index.js';
import { ROOT, harness, stdio } from './support.js';

const TASKS_SERVER = `${ROOT}test/fixtures/tasks-server.mjs`;

describe('agent host with task-backed tools', () => {
  it('runs a long task beside quick tools in one turn without holding the quick results back', async () => {
    await using h = await harness(
      'openai',
      (body, _request, index) => {
        if (index > 0)
          return {
            text: readToolResults('openai', body)
              .map((r) => r.text)
              .join(' | '),
          };
        return {
          toolCalls: [
            { name: 'tasks__render', arguments: { ms: 1500 } },
            { name: 'tasks__quick', arguments: {} },
            { name: 'tasks__quick', arguments: {} },
          ],
        };
      },
      { tasks: stdio(TASKS_SERVER, '--stdio') },
    );
    const hostEvents: HostEvent[] = [];
    h.host.on((event) => hostEvents.push(event));
    const started = Date.now();
    const result = await h.run('Render, and be quick about the rest');
    const results = h.events.filter(
      (event): event is Extract<AgentEvent, { type: 'tool_result' }> => event.type === 'tool_result',
    );
    expect(results.map((event) => event.record.llmName)).toEqual([
      'tasks__quick',
      'tasks__quick',
      'tasks__render',
    ]);
    // The quick results were in well before the task ended.
    const quick = results.filter((event) => event.record.llmName === 'tasks__quick');
    for (const event of quick) expect(event.record.durationMs).toBeLessThan(1000);
    expect(results.at(-1)?.record.durationMs).toBeGreaterThanOrEqual(1400);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    const taskEvents = hostEvents.filter((event) => event.type === 'task');
    expect(taskEvents[0]).toMatchObject({ type: 'task', server: 'tasks', tool: 'render', status: 'working' });
    expect(taskEvents.at(-1)).toMatchObject({ tool: 'render', status: 'completed' });
    // The same statuses reach the run as events of the render call itself.
    const renderId = results.at(-1)?.record.id;
    const callTasks = h.events.filter((event) => event.type === 'tool_task');
    expect(callTasks.length).toBeGreaterThan(0);
    for (const event of callTasks)
      expect(event).toMatchObject({ callId: renderId, llmName: 'tasks__render' });
    expect(callTasks[0]).toMatchObject({ status: 'working' });
    expect(callTasks.at(-1)).toMatchObject({ status: 'completed' });
    expect(result.answer).toBe('rendered in 1500 ms (task) | quick | quick');
  });

  it("answers a task's input requests through the host's elicitation handler", async () => {
    await using h = await harness(
      'openai',
      (body, _request, index) =>
        index > 0
          ? { text: readToolResults('openai', body)[0]?.text ?? '' }
          : { toolCalls: [{ name: 'tasks__interview', arguments: {} }] },
      { tasks: stdio(TASKS_SERVER, '--stdio') },
    );
    const asked: string[] = [];
    h.host.setHandlers({
      elicitation: async (server, params) => {
        asked.push(`${server}: ${params.message}`);
        return { action: 'accept', content: { answer: params.message.includes('name') ? 'Ada' : 'green' } };
      },
    });
    const hostEvents: HostEvent[] = [];
    h.host.on((event) => hostEvents.push(event));
    const result = await h.run('Interview me');
    expect(asked).toEqual(['tasks: Your name?', 'tasks: Your colour?']);
    expect(result.answer).toBe('Ada likes green');
    expect(hostEvents.some((event) => event.type === 'task' && event.status === 'input_required')).toBe(true);
  });
});

describe('agent host with MCP-served skills', () => {
  it('offers a loaded, verified skill to the model as system context', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentforge-host-skill-'));
    const skillDir = join(dir, 'release-notes');
    await mkdir(skillDir);
    await writeFile(
      join(skillDir, 'SKILL.md'),
      '---\nname: release-notes\ndescription: Write release notes\n---\nList changes as bullets, newest first.\n',
    );
    const server = new McpServer({ name: 'skills', version: '1.0.0' });
    await useSkills(server).registerSkill(skillDir);
    const listening = await server.listen();
    try {
      await using client = await McpClient.connect(listening.url);
      const skills = new SkillsClient(client);
      const [entry] = await skills.list();
      if (!entry) throw new Error('no skill listed');
      const system = skillsContext([{ server: 'skills', skill: await skills.load(entry) }]);
      await using h = await harness(
        'openai',
        () => ({ text: 'ok' }),
        { tasks: stdio(TASKS_SERVER, '--stdio') },
        { system },
      );
      await h.run('Write the notes');
      const sent = h.fake.requests[0]?.body as { messages: Array<{ role: string; content: string }> };
      expect(sent.messages[0]?.role).toBe('system');
      expect(sent.messages[0]?.content).toContain(
        '<skill server="skills" uri="skill://release-notes/SKILL.md"',
      );
      expect(sent.messages[0]?.content).toContain('List changes as bullets, newest first.');
    } finally {
      await listening.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
