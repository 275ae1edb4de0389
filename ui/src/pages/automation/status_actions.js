// The status changes of an automation and the token actions of its webhook triggers, each a route of
// its own: the action named on a button picks the typed call.
import { call, client, inSpace } from "../../api.js";

/** @typedef {"activate" | "pause" | "archive" | "unarchive"} StatusAction */

/** @param {string} automationId @param {StatusAction | string} action */
export function changeStatus(automationId, action) {
  const init = { params: { path: inSpace({ automation_id: automationId }) } };
  if (action === "activate") return call(client.POST("/api/v1/spaces/{space_id}/automations/{automation_id}/activate", init));
  if (action === "pause") return call(client.POST("/api/v1/spaces/{space_id}/automations/{automation_id}/pause", init));
  if (action === "archive") return call(client.POST("/api/v1/spaces/{space_id}/automations/{automation_id}/archive", init));
  if (action === "unarchive") return call(client.POST("/api/v1/spaces/{space_id}/automations/{automation_id}/unarchive", init));
  throw new Error(`unknown automation action ${action}`);
}

/** @param {string} automationId @param {string} triggerId @param {"rotate" | "revoke"} action */
export function triggerToken(automationId, triggerId, action) {
  const init = { params: { path: inSpace({ automation_id: automationId, trigger_id: triggerId }) } };
  if (action === "rotate") return call(client.POST("/api/v1/spaces/{space_id}/automations/{automation_id}/triggers/{trigger_id}/rotate", init));
  return call(client.POST("/api/v1/spaces/{space_id}/automations/{automation_id}/triggers/{trigger_id}/revoke", init));
}
