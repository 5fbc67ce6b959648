/** Human-readable lines for agent events (chat, `run --verbose`, the demo's step-by-step print-out). */
import type { AgentEvent, ToolCallRecord } from '../agent/events.js';
import type { McpHost } from '../agent/host.js';
import { partsToText, toResultParts } from '../agent/results.js';

const PREVIEW = 300;

function preview(text: string, max = PREVIEW): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max)}… (${flat.length} chars)`;
}

function resultText(record: ToolCallRecord): string {
  return partsToText(toResultParts(record.result));
}

export function describeServers(host: McpHost): string[] {
  return host.servers().map((s) => {
    if (s.state !== 'ready') return `${s.name}: ${s.state}${s.error ? ` (${s.error})` : ''}`;
    const target = host.config.servers.find((c) => c.name === s.name)?.target;
    const via = target?.kind === 'stdio' ? 'stdio' : target?.kind === 'http' ? target.url : '?';
    return `${s.name}: ready via ${via}, protocol ${s.protocolVersion ?? '?'} (${s.era ?? '?'} era), ${s.toolCount} tools`;
  });
}

export function describeRegistry(host: McpHost): string[] {
  const entries = host.registry.entries();
  if (entries.length === 0) return ['(no tools)'];
  const width = Math.max(...entries.map((e) => e.llmName.length));
  return entries.map((e) => `${e.llmName.padEnd(width)}  -> ${e.server} / ${e.mcpName}`);
}

/**
 * One line (or a few) per event. `labelled` (the demo) starts each line with the step of the agent loop it
 * shows, in brackets: [registry], [think], [act], [observe], [answer]; chat and `run --verbose` print the
 * same lines without the brackets and leave the answer to their own output.
 */
export function renderEvent(event: AgentEvent, labelled: boolean): string | undefined {
  const head = (step: string) => (labelled ? `[${step}] ` : `${step}: `);
  switch (event.type) {
    case 'registry':
      if (event.step === 1) return undefined;
      return `${labelled ? '[registry] ' : 'registry '}refreshed between turns: ${event.tools.join(', ') || '(no tools)'}`;
    case 'model_start':
      return `${head('think')}step ${event.step}, asking the model`;
    case 'model_end': {
      const calls = event.response.message.toolCalls;
      if (calls.length === 0) return undefined;
      const list = calls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(', ');
      return `${labelled ? '[think] ' : ''}model chose ${calls.length} tool call${calls.length > 1 ? 's' : ''}: ${list}`;
    }
    case 'tool_call':
      // A known tool's call is shown when it is sent (tool_start): it may first wait for approval.
      return event.server ? undefined : `${head('act')}${event.call.name} is not a known tool`;
    case 'tool_start':
      return `${head('act')}${event.llmName} -> tools/call ${event.server} / ${event.mcpName}`;
    case 'tool_result': {
      const r = event.record;
      const approval = r.approval ? `${r.approval.decision} by ${r.approval.by}` : 'no approval needed';
      const status = r.status === 'ok' ? (r.isError ? 'tool error' : 'ok') : r.status;
      return `${head('observe')}${r.llmName} ${status} in ${r.durationMs} ms (${approval}): ${preview(resultText(r))}`;
    }
    case 'answer':
      return labelled ? `[answer]\n${event.text}` : undefined;
    default:
      return undefined;
  }
}
