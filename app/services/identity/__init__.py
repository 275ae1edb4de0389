"""Identity: tokens, sign-in, invitations, spaces and members, and what a role may do."""
