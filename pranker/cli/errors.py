"""The one exception the command line reports as a message (exit status 2)."""


class UserError(Exception):
    """An error in the user's input: reported as one message, exit status 2."""
