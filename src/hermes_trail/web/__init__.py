"""The web viewer: a dashboard of every session and a replay page per session, served locally."""
