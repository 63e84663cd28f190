"""What every family shares: namespace and device, the dtype policy,
validation (two tiers), and small arithmetic helpers.  Imports no family."""
