"""Errors a source run can end with. Each maps to an ingest status the run report and raw.ingest_runs show."""

from config.redact import redact


class SourceError(Exception):
    """Base class: something went wrong with one source; the other sources carry on."""

    status = "failed"

    def __init__(self, message: str = ""):
        # the one place an error's text is made: a URL or header in it never carries a key (config/redact.py)
        super().__init__(redact(message))


class FetchError(SourceError):
    """The network gave up on us. `transient` = worth trying again later (timeouts, resets, 429, 5xx after the
    client's own retries); a 404, a forbidden redirect or an oversized body is not."""

    def __init__(self, message: str, transient: bool = False):
        super().__init__(message)
        self.transient = transient


class ResponseTooLarge(FetchError):
    """A body exceeded the client's size cap; it is never parsed."""


class ForbiddenRedirect(FetchError):
    """A redirect pointed outside the source's own hosts."""


class BlockedError(SourceError):
    """The site answered with a captcha / bot wall / login page instead of data."""

    status = "blocked"


class ParseError(SourceError):
    """The payload did not have the documented shape (changed layout, truncated body...). Never retried."""

    status = "parse_error"


class MissingCredentials(SourceError):
    """The source needs an API key that is not in the environment: it is skipped, not failed."""

    status = "skipped"


class NothingToWatch(SourceError):
    """A watch-list source with nothing in the watch list: skipped with that reason, not failed."""

    status = "skipped"
