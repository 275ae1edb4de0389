"""Governance: action modes, approvals and standing grants, the invocation audit, budgets."""
