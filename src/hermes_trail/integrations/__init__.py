"""How hermes-trail plugs into the agents whose history it reads (today: Hermes Agent)."""
