import type { ProtocolHooks } from '../jsonrpc/hooks.js';
import { isRequestId } from '../jsonrpc/messages.js';
import { Notification } from './methods.js';
import { isRecord } from '../util/record.js';

/** MCP's cancellation (basic/utilities/cancellation) and progress (basic/utilities/progress) conventions. */
export const mcpHooks: ProtocolHooks = {
  cancelNotification(id, reason) {
    const params: Record<string, unknown> =
      reason === undefined ? { requestId: id } : { requestId: id, reason };
    return { jsonrpc: '2.0', method: Notification.Cancelled, params };
  },
  cancelledRequestId(notification) {
    if (notification.method !== Notification.Cancelled) return undefined;
    const id = notification.params?.requestId;
    return isRequestId(id) ? id : undefined;
  },
  progressToken(notification) {
    if (notification.method !== Notification.Progress) return undefined;
    const token = notification.params?.progressToken;
    return isRequestId(token) ? token : undefined;
  },
  withProgressToken(params, token) {
    // Object.assign, not spread: spread takes a slow path on Node 20 and this runs per request with progress.
    const meta = params?._meta;
    const merged: Record<string, unknown> = isRecord(meta) ? Object.assign({}, meta) : {};
    merged.progressToken = token;
    const copy: Record<string, unknown> = Object.assign({}, params);
    copy._meta = merged;
    return copy;
  },
};
