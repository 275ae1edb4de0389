""" Contains all the data models used in inputs/outputs """

from .action_modes import ActionModes
from .action_modes_modes import ActionModesModes
from .action_modes_modes_additional_property import ActionModesModesAdditionalProperty
from .action_modes_out import ActionModesOut
from .action_modes_out_modes import ActionModesOutModes
from .action_modes_out_rules_item import ActionModesOutRulesItem
from .activation import Activation
from .approval_decision import ApprovalDecision
from .approval_decision_out import ApprovalDecisionOut
from .approval_decision_out_decision import ApprovalDecisionOutDecision
from .approval_decision_out_via import ApprovalDecisionOutVia
from .approval_decision_scope import ApprovalDecisionScope
from .approval_denial import ApprovalDenial
from .approval_grant_out import ApprovalGrantOut
from .approval_grant_out_status import ApprovalGrantOutStatus
from .approval_out import ApprovalOut
from .approval_out_error_type_0 import ApprovalOutErrorType0
from .approval_out_mode_rule_type_0 import ApprovalOutModeRuleType0
from .approval_settings_body import ApprovalSettingsBody
from .approvals_list_invocations_status_type_0_item import ApprovalsListInvocationsStatusType0Item
from .approvals_list_status_type_0_item import ApprovalsListStatusType0Item
from .artifact_index import ArtifactIndex
from .artifact_list_out import ArtifactListOut
from .artifact_out import ArtifactOut
from .as_code_scope import AsCodeScope
from .auth_bearer import AuthBearer
from .auth_header import AuthHeader
from .auth_none import AuthNone
from .auth_o_auth import AuthOAuth
from .authorize_out import AuthorizeOut
from .automation_create import AutomationCreate
from .automation_definition import AutomationDefinition
from .automation_definition_metadata import AutomationDefinitionMetadata
from .automation_out import AutomationOut
from .automation_out_action_modes import AutomationOutActionModes
from .automation_out_definition import AutomationOutDefinition
from .automation_saved_out import AutomationSavedOut
from .automation_saved_out_action_modes import AutomationSavedOutActionModes
from .automation_saved_out_definition import AutomationSavedOutDefinition
from .automation_stats_out import AutomationStatsOut
from .automation_status import AutomationStatus
from .automation_update import AutomationUpdate
from .automation_version_out import AutomationVersionOut
from .automation_version_out_definition import AutomationVersionOutDefinition
from .callback_out import CallbackOut
from .callback_secret_out import CallbackSecretOut
from .caller_run_out import CallerRunOut
from .caller_run_out_error_type_0 import CallerRunOutErrorType0
from .catalog_get_response_catalog_get import CatalogGetResponseCatalogGet
from .catalog_get_space_response_catalog_get_space import CatalogGetSpaceResponseCatalogGetSpace
from .completion_body import CompletionBody
from .connection_create import ConnectionCreate
from .connection_create_transport import ConnectionCreateTransport
from .connection_out import ConnectionOut
from .connection_out_auth import ConnectionOutAuth
from .connection_patch import ConnectionPatch
from .database_check_out import DatabaseCheckOut
from .database_create import DatabaseCreate
from .database_create_access import DatabaseCreateAccess
from .database_out import DatabaseOut
from .database_patch import DatabasePatch
from .database_patch_access_type_0 import DatabasePatchAccessType0
from .day_stats_out import DayStatsOut
from .day_stats_out_by_status import DayStatsOutByStatus
from .definition_check import DefinitionCheck
from .definition_check_definition import DefinitionCheckDefinition
from .definition_preview_create import DefinitionPreviewCreate
from .definition_preview_create_definition import DefinitionPreviewCreateDefinition
from .definition_preview_create_inputs import DefinitionPreviewCreateInputs
from .definition_preview_create_trigger_payload import DefinitionPreviewCreateTriggerPayload
from .document_create import DocumentCreate
from .document_create_format import DocumentCreateFormat
from .document_create_metadata import DocumentCreateMetadata
from .document_out import DocumentOut
from .document_out_metadata import DocumentOutMetadata
from .document_out_status import DocumentOutStatus
from .document_page import DocumentPage
from .document_patch import DocumentPatch
from .document_patch_metadata_type_0 import DocumentPatchMetadataType0
from .document_text_out import DocumentTextOut
from .document_text_out_metadata import DocumentTextOutMetadata
from .document_text_out_status import DocumentTextOutStatus
from .draft_create import DraftCreate
from .draft_edit import DraftEdit
from .draft_edit_definition import DraftEditDefinition
from .draft_example_out import DraftExampleOut
from .draft_example_out_definition import DraftExampleOutDefinition
from .draft_list_out import DraftListOut
from .draft_message import DraftMessage
from .draft_message_answers import DraftMessageAnswers
from .draft_out import DraftOut
from .draft_out_clarifications_item import DraftOutClarificationsItem
from .draft_out_definition_type_0 import DraftOutDefinitionType0
from .draft_out_diff_type_0 import DraftOutDiffType0
from .draft_out_estimate_type_0 import DraftOutEstimateType0
from .draft_out_write_policy_type_0 import DraftOutWritePolicyType0
from .draft_write_policy import DraftWritePolicy
from .draft_write_policy_write_policy import DraftWritePolicyWritePolicy
from .durations_out import DurationsOut
from .email_approvals_body import EmailApprovalsBody
from .email_approvals_out import EmailApprovalsOut
from .error_body_out import ErrorBodyOut
from .error_detail_out import ErrorDetailOut
from .error_out import ErrorOut
from .event_config import EventConfig
from .event_config_filters_type_0 import EventConfigFiltersType0
from .event_create import EventCreate
from .event_create_payload import EventCreatePayload
from .event_out import EventOut
from .event_out_payload import EventOutPayload
from .event_trigger import EventTrigger
from .execution_policy import ExecutionPolicy
from .execution_policy_concurrency import ExecutionPolicyConcurrency
from .execution_policy_retry_backoff import ExecutionPolicyRetryBackoff
from .execution_policy_write_policy import ExecutionPolicyWritePolicy
from .exposure import Exposure
from .fire_out import FireOut
from .fire_out_error_type_0 import FireOutErrorType0
from .flag_out import FlagOut
from .for_each_block import ForEachBlock
from .for_each_step import ForEachStep
from .health_healthz_response_health_healthz import HealthHealthzResponseHealthHealthz
from .if_block import IfBlock
from .if_block_condition import IfBlockCondition
from .if_step import IfStep
from .input_default_out import InputDefaultOut
from .input_default_put import InputDefaultPut
from .inputs import Inputs
from .inputs_schema import InputsSchema
from .invitation_accept import InvitationAccept
from .invitation_out import InvitationOut
from .invocation_out import InvocationOut
from .invocation_out_error_type_0 import InvocationOutErrorType0
from .invocation_out_mode_rule_type_0 import InvocationOutModeRuleType0
from .knowledge_upload_document_body import KnowledgeUploadDocumentBody
from .kv_cleared import KvCleared
from .kv_entry_out import KvEntryOut
from .kv_put import KvPut
from .link_call_out import LinkCallOut
from .link_create import LinkCreate
from .link_decided_out import LinkDecidedOut
from .link_decision import LinkDecision
from .link_decision_decision import LinkDecisionDecision
from .link_out import LinkOut
from .link_out_served_by import LinkOutServedBy
from .link_token import LinkToken
from .list_out_input_default_out import ListOutInputDefaultOut
from .mcp_exposure import McpExposure
from .mcp_scope import McpScope
from .mcp_server_body import McpServerBody
from .mcp_server_body_params import McpServerBodyParams
from .member_create import MemberCreate
from .member_out import MemberOut
from .member_update import MemberUpdate
from .new_member_out import NewMemberOut
from .new_token_out import NewTokenOut
from .new_token_out_kind import NewTokenOutKind
from .notification_out import NotificationOut
from .overlap_check_out import OverlapCheckOut
from .overlap_match_out import OverlapMatchOut
from .overlap_out import OverlapOut
from .overlap_owner_out import OverlapOwnerOut
from .overlap_reason_out import OverlapReasonOut
from .page_out_approval_grant_out import PageOutApprovalGrantOut
from .page_out_approval_out import PageOutApprovalOut
from .page_out_automation_out import PageOutAutomationOut
from .page_out_automation_version_out import PageOutAutomationVersionOut
from .page_out_connection_out import PageOutConnectionOut
from .page_out_event_out import PageOutEventOut
from .page_out_invocation_out import PageOutInvocationOut
from .page_out_kv_entry_out import PageOutKvEntryOut
from .page_out_member_out import PageOutMemberOut
from .page_out_notification_out import PageOutNotificationOut
from .page_out_policy_change_out import PageOutPolicyChangeOut
from .page_out_run_out import PageOutRunOut
from .page_out_secret_out import PageOutSecretOut
from .page_out_space_out import PageOutSpaceOut
from .page_out_token_out import PageOutTokenOut
from .page_out_webhook_delivery_out import PageOutWebhookDeliveryOut
from .page_out_webhook_endpoint_out import PageOutWebhookEndpointOut
from .password_change import PasswordChange
from .plugin_entry_out import PluginEntryOut
from .plugin_entry_out_risk import PluginEntryOutRisk
from .plugin_out import PluginOut
from .plugin_out_settings import PluginOutSettings
from .plugin_out_state import PluginOutState
from .plugin_poller_out import PluginPollerOut
from .plugin_registrations import PluginRegistrations
from .plugin_registrations_settings_schema_type_0 import PluginRegistrationsSettingsSchemaType0
from .plugin_subscription_out import PluginSubscriptionOut
from .plugin_switch import PluginSwitch
from .plugin_switch_settings_type_0 import PluginSwitchSettingsType0
from .plugin_task_out import PluginTaskOut
from .plugin_task_out_error_type_0 import PluginTaskOutErrorType0
from .plugin_task_out_kind import PluginTaskOutKind
from .plugin_trigger_out import PluginTriggerOut
from .plugin_trigger_out_payload_schema import PluginTriggerOutPayloadSchema
from .policy_change_out import PolicyChangeOut
from .preview_create import PreviewCreate
from .preview_create_inputs import PreviewCreateInputs
from .preview_create_trigger_payload import PreviewCreateTriggerPayload
from .preview_out import PreviewOut
from .preview_out_caps import PreviewOutCaps
from .preview_out_cost import PreviewOutCost
from .preview_out_inputs import PreviewOutInputs
from .preview_out_schedules_item import PreviewOutSchedulesItem
from .preview_out_steps_item import PreviewOutStepsItem
from .preview_out_warnings_item import PreviewOutWarningsItem
from .problem_out import ProblemOut
from .queue_depth_out import QueueDepthOut
from .queue_series_out import QueueSeriesOut
from .ran_as_out import RanAsOut
from .replay_create import ReplayCreate
from .replay_create_llm_type_0 import ReplayCreateLlmType0
from .replay_create_mode_type_0 import ReplayCreateModeType0
from .replay_create_version import ReplayCreateVersion
from .role import Role
from .run_create import RunCreate
from .run_create_inputs import RunCreateInputs
from .run_create_llm import RunCreateLlm
from .run_create_mode import RunCreateMode
from .run_detail_with_invocations_out import RunDetailWithInvocationsOut
from .run_detail_with_invocations_out_definition import RunDetailWithInvocationsOutDefinition
from .run_detail_with_invocations_out_error_type_0 import RunDetailWithInvocationsOutErrorType0
from .run_detail_with_invocations_out_inputs import RunDetailWithInvocationsOutInputs
from .run_detail_with_invocations_out_trigger_payload import RunDetailWithInvocationsOutTriggerPayload
from .run_out import RunOut
from .run_out_error_type_0 import RunOutErrorType0
from .run_out_inputs import RunOutInputs
from .run_priority import RunPriority
from .run_stats_out import RunStatsOut
from .run_status import RunStatus
from .run_step_out import RunStepOut
from .run_step_out_error_type_0 import RunStepOutErrorType0
from .schedule_config import ScheduleConfig
from .schedule_config_catch_up import ScheduleConfigCatchUp
from .schedule_trigger import ScheduleTrigger
from .schemas_definition_response_schemas_definition import SchemasDefinitionResponseSchemasDefinition
from .schemas_filter_response_schemas_filter import SchemasFilterResponseSchemasFilter
from .search_filters import SearchFilters
from .search_hit_out import SearchHitOut
from .search_out import SearchOut
from .search_out_mode import SearchOutMode
from .search_request import SearchRequest
from .secret_hosts_put import SecretHostsPut
from .secret_out import SecretOut
from .secret_put import SecretPut
from .session_out import SessionOut
from .sign_in_body import SignInBody
from .slack_approvals_body import SlackApprovalsBody
from .slack_approvals_out import SlackApprovalsOut
from .slack_interaction_response_slack_interaction import SlackInteractionResponseSlackInteraction
from .space_create import SpaceCreate
from .space_out import SpaceOut
from .space_with_role_out import SpaceWithRoleOut
from .step import Step
from .step_config import StepConfig
from .step_retry_backoff_type_0 import StepRetryBackoffType0
from .step_spend_out import StepSpendOut
from .token_create import TokenCreate
from .token_out import TokenOut
from .token_out_kind import TokenOutKind
from .token_scopes import TokenScopes
from .tool_grant import ToolGrant
from .tool_grant_params_type_0 import ToolGrantParamsType0
from .tool_out import ToolOut
from .tool_out_annotations import ToolOutAnnotations
from .tool_out_input_schema import ToolOutInputSchema
from .tool_out_output_schema_type_0 import ToolOutOutputSchemaType0
from .tool_patch import ToolPatch
from .tool_patch_risk_type_0 import ToolPatchRiskType0
from .totals_out import TotalsOut
from .totals_out_by_status import TotalsOutByStatus
from .trigger_out import TriggerOut
from .user_out import UserOut
from .validation_out import ValidationOut
from .version_precondition import VersionPrecondition
from .webhook_attempt_out import WebhookAttemptOut
from .webhook_config import WebhookConfig
from .webhook_config_input_mapping import WebhookConfigInputMapping
from .webhook_config_output_visibility import WebhookConfigOutputVisibility
from .webhook_delivery_out import WebhookDeliveryOut
from .webhook_delivery_out_payload import WebhookDeliveryOutPayload
from .webhook_delivery_out_status import WebhookDeliveryOutStatus
from .webhook_endpoint_create import WebhookEndpointCreate
from .webhook_endpoint_create_events_item import WebhookEndpointCreateEventsItem
from .webhook_endpoint_out import WebhookEndpointOut
from .webhook_endpoint_patch import WebhookEndpointPatch
from .webhook_endpoint_with_secret_out import WebhookEndpointWithSecretOut
from .webhook_endpoints_list_deliveries_status_type_0 import WebhookEndpointsListDeliveriesStatusType0
from .webhook_endpoints_list_space_deliveries_status_type_0 import WebhookEndpointsListSpaceDeliveriesStatusType0
from .webhook_trigger import WebhookTrigger

__all__ = (
    "ActionModes",
    "ActionModesModes",
    "ActionModesModesAdditionalProperty",
    "ActionModesOut",
    "ActionModesOutModes",
    "ActionModesOutRulesItem",
    "Activation",
    "ApprovalDecision",
    "ApprovalDecisionOut",
    "ApprovalDecisionOutDecision",
    "ApprovalDecisionOutVia",
    "ApprovalDecisionScope",
    "ApprovalDenial",
    "ApprovalGrantOut",
    "ApprovalGrantOutStatus",
    "ApprovalOut",
    "ApprovalOutErrorType0",
    "ApprovalOutModeRuleType0",
    "ApprovalSettingsBody",
    "ApprovalsListInvocationsStatusType0Item",
    "ApprovalsListStatusType0Item",
    "ArtifactIndex",
    "ArtifactListOut",
    "ArtifactOut",
    "AsCodeScope",
    "AuthBearer",
    "AuthHeader",
    "AuthNone",
    "AuthOAuth",
    "AuthorizeOut",
    "AutomationCreate",
    "AutomationDefinition",
    "AutomationDefinitionMetadata",
    "AutomationOut",
    "AutomationOutActionModes",
    "AutomationOutDefinition",
    "AutomationSavedOut",
    "AutomationSavedOutActionModes",
    "AutomationSavedOutDefinition",
    "AutomationStatsOut",
    "AutomationStatus",
    "AutomationUpdate",
    "AutomationVersionOut",
    "AutomationVersionOutDefinition",
    "CallbackOut",
    "CallbackSecretOut",
    "CallerRunOut",
    "CallerRunOutErrorType0",
    "CatalogGetResponseCatalogGet",
    "CatalogGetSpaceResponseCatalogGetSpace",
    "CompletionBody",
    "ConnectionCreate",
    "ConnectionCreateTransport",
    "ConnectionOut",
    "ConnectionOutAuth",
    "ConnectionPatch",
    "DatabaseCheckOut",
    "DatabaseCreate",
    "DatabaseCreateAccess",
    "DatabaseOut",
    "DatabasePatch",
    "DatabasePatchAccessType0",
    "DayStatsOut",
    "DayStatsOutByStatus",
    "DefinitionCheck",
    "DefinitionCheckDefinition",
    "DefinitionPreviewCreate",
    "DefinitionPreviewCreateDefinition",
    "DefinitionPreviewCreateInputs",
    "DefinitionPreviewCreateTriggerPayload",
    "DocumentCreate",
    "DocumentCreateFormat",
    "DocumentCreateMetadata",
    "DocumentOut",
    "DocumentOutMetadata",
    "DocumentOutStatus",
    "DocumentPage",
    "DocumentPatch",
    "DocumentPatchMetadataType0",
    "DocumentTextOut",
    "DocumentTextOutMetadata",
    "DocumentTextOutStatus",
    "DraftCreate",
    "DraftEdit",
    "DraftEditDefinition",
    "DraftExampleOut",
    "DraftExampleOutDefinition",
    "DraftListOut",
    "DraftMessage",
    "DraftMessageAnswers",
    "DraftOut",
    "DraftOutClarificationsItem",
    "DraftOutDefinitionType0",
    "DraftOutDiffType0",
    "DraftOutEstimateType0",
    "DraftOutWritePolicyType0",
    "DraftWritePolicy",
    "DraftWritePolicyWritePolicy",
    "DurationsOut",
    "EmailApprovalsBody",
    "EmailApprovalsOut",
    "ErrorBodyOut",
    "ErrorDetailOut",
    "ErrorOut",
    "EventConfig",
    "EventConfigFiltersType0",
    "EventCreate",
    "EventCreatePayload",
    "EventOut",
    "EventOutPayload",
    "EventTrigger",
    "ExecutionPolicy",
    "ExecutionPolicyConcurrency",
    "ExecutionPolicyRetryBackoff",
    "ExecutionPolicyWritePolicy",
    "Exposure",
    "FireOut",
    "FireOutErrorType0",
    "FlagOut",
    "ForEachBlock",
    "ForEachStep",
    "HealthHealthzResponseHealthHealthz",
    "IfBlock",
    "IfBlockCondition",
    "IfStep",
    "InputDefaultOut",
    "InputDefaultPut",
    "Inputs",
    "InputsSchema",
    "InvitationAccept",
    "InvitationOut",
    "InvocationOut",
    "InvocationOutErrorType0",
    "InvocationOutModeRuleType0",
    "KnowledgeUploadDocumentBody",
    "KvCleared",
    "KvEntryOut",
    "KvPut",
    "LinkCallOut",
    "LinkCreate",
    "LinkDecidedOut",
    "LinkDecision",
    "LinkDecisionDecision",
    "LinkOut",
    "LinkOutServedBy",
    "LinkToken",
    "ListOutInputDefaultOut",
    "McpExposure",
    "McpScope",
    "McpServerBody",
    "McpServerBodyParams",
    "MemberCreate",
    "MemberOut",
    "MemberUpdate",
    "NewMemberOut",
    "NewTokenOut",
    "NewTokenOutKind",
    "NotificationOut",
    "OverlapCheckOut",
    "OverlapMatchOut",
    "OverlapOut",
    "OverlapOwnerOut",
    "OverlapReasonOut",
    "PageOutApprovalGrantOut",
    "PageOutApprovalOut",
    "PageOutAutomationOut",
    "PageOutAutomationVersionOut",
    "PageOutConnectionOut",
    "PageOutEventOut",
    "PageOutInvocationOut",
    "PageOutKvEntryOut",
    "PageOutMemberOut",
    "PageOutNotificationOut",
    "PageOutPolicyChangeOut",
    "PageOutRunOut",
    "PageOutSecretOut",
    "PageOutSpaceOut",
    "PageOutTokenOut",
    "PageOutWebhookDeliveryOut",
    "PageOutWebhookEndpointOut",
    "PasswordChange",
    "PluginEntryOut",
    "PluginEntryOutRisk",
    "PluginOut",
    "PluginOutSettings",
    "PluginOutState",
    "PluginPollerOut",
    "PluginRegistrations",
    "PluginRegistrationsSettingsSchemaType0",
    "PluginSubscriptionOut",
    "PluginSwitch",
    "PluginSwitchSettingsType0",
    "PluginTaskOut",
    "PluginTaskOutErrorType0",
    "PluginTaskOutKind",
    "PluginTriggerOut",
    "PluginTriggerOutPayloadSchema",
    "PolicyChangeOut",
    "PreviewCreate",
    "PreviewCreateInputs",
    "PreviewCreateTriggerPayload",
    "PreviewOut",
    "PreviewOutCaps",
    "PreviewOutCost",
    "PreviewOutInputs",
    "PreviewOutSchedulesItem",
    "PreviewOutStepsItem",
    "PreviewOutWarningsItem",
    "ProblemOut",
    "QueueDepthOut",
    "QueueSeriesOut",
    "RanAsOut",
    "ReplayCreate",
    "ReplayCreateLlmType0",
    "ReplayCreateModeType0",
    "ReplayCreateVersion",
    "Role",
    "RunCreate",
    "RunCreateInputs",
    "RunCreateLlm",
    "RunCreateMode",
    "RunDetailWithInvocationsOut",
    "RunDetailWithInvocationsOutDefinition",
    "RunDetailWithInvocationsOutErrorType0",
    "RunDetailWithInvocationsOutInputs",
    "RunDetailWithInvocationsOutTriggerPayload",
    "RunOut",
    "RunOutErrorType0",
    "RunOutInputs",
    "RunPriority",
    "RunStatsOut",
    "RunStatus",
    "RunStepOut",
    "RunStepOutErrorType0",
    "ScheduleConfig",
    "ScheduleConfigCatchUp",
    "ScheduleTrigger",
    "SchemasDefinitionResponseSchemasDefinition",
    "SchemasFilterResponseSchemasFilter",
    "SearchFilters",
    "SearchHitOut",
    "SearchOut",
    "SearchOutMode",
    "SearchRequest",
    "SecretHostsPut",
    "SecretOut",
    "SecretPut",
    "SessionOut",
    "SignInBody",
    "SlackApprovalsBody",
    "SlackApprovalsOut",
    "SlackInteractionResponseSlackInteraction",
    "SpaceCreate",
    "SpaceOut",
    "SpaceWithRoleOut",
    "Step",
    "StepConfig",
    "StepRetryBackoffType0",
    "StepSpendOut",
    "TokenCreate",
    "TokenOut",
    "TokenOutKind",
    "TokenScopes",
    "ToolGrant",
    "ToolGrantParamsType0",
    "ToolOut",
    "ToolOutAnnotations",
    "ToolOutInputSchema",
    "ToolOutOutputSchemaType0",
    "ToolPatch",
    "ToolPatchRiskType0",
    "TotalsOut",
    "TotalsOutByStatus",
    "TriggerOut",
    "UserOut",
    "ValidationOut",
    "VersionPrecondition",
    "WebhookAttemptOut",
    "WebhookConfig",
    "WebhookConfigInputMapping",
    "WebhookConfigOutputVisibility",
    "WebhookDeliveryOut",
    "WebhookDeliveryOutPayload",
    "WebhookDeliveryOutStatus",
    "WebhookEndpointCreate",
    "WebhookEndpointCreateEventsItem",
    "WebhookEndpointOut",
    "WebhookEndpointPatch",
    "WebhookEndpointsListDeliveriesStatusType0",
    "WebhookEndpointsListSpaceDeliveriesStatusType0",
    "WebhookEndpointWithSecretOut",
    "WebhookTrigger",
)
