"""Secrets redaction for everything indexed or shown to an agent.

Hermes stores tool-call arguments unredacted on purpose, and tool results, prompts and memory carry secrets
too, so every text the index holds passes through :func:`redact` first. Each secret becomes a marker,
``[REDACTED:<kind>]``, and the text around it stays: ``Authorization: Bearer [REDACTED:bearer-token]``,
``https://user:[REDACTED:url-password]@host/``, ``OPENAI_API_KEY=[REDACTED:env-secret]``.

The pattern set, with an example and the reason for each, is in ``docs/secrets.md``. In short:

- vendor keys recognised by their documented shape (AWS, GitHub, GitLab, Slack, Stripe, OpenAI,
  Anthropic, OpenRouter, Google, Hugging Face, npm, PyPI, Twilio, SendGrid, Telegram, a few model
  providers), JWTs and private key blocks, wherever they appear;
- credentials by position: ``Authorization`` headers, ``user:password@`` in URLs, ``curl -u``;
- values assigned to a name that says secret (``*_API_KEY=``, ``"password": "..."``, ``token: ...``,
  ``--token ...``, ``?access_token=...``), and high-entropy values assigned to a weaker name (``key``,
  ``auth``). A high-entropy string on its own is never redacted: git SHAs, UUIDs, hashes and base64
  images look just like one.

It runs on every indexed row, so no pattern scans the text on its own. Vendor keys are looked for only
at the start of runs of 20 or more base64url characters, which one ``bytes.translate`` and ``bytes.find``
locate; names are found by ``bytes.find`` of a few words (``token``, ``secret``, ``pass``, ``key``,
``auth``, ``pwd``) in the lowercased text and judged where they occur; URLs and private keys only when
``://`` or ``-----BEGIN`` is there. :func:`redact` never raises (it fails closed), and redacting twice
gives the same text: a marker is never matched again.
"""

from __future__ import annotations

import base64
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

__all__ = ["KINDS", "find_secrets", "redact"]

#: Every kind a marker can name (docs/secrets.md has each). ``unreadable`` is the whole text, reported only
#: if scanning itself failed.
KINDS = (
    "aws-access-key-id",
    "aws-secret-key",
    "github-token",
    "gitlab-token",
    "slack-token",
    "slack-webhook",
    "stripe-key",
    "openai-key",
    "anthropic-key",
    "openrouter-key",
    "google-api-key",
    "google-oauth",
    "huggingface-token",
    "npm-token",
    "pypi-token",
    "twilio-key",
    "sendgrid-key",
    "telegram-token",
    "provider-key",
    "jwt",
    "private-key",
    "bearer-token",
    "basic-auth",
    "header-secret",
    "url-password",
    "url-param",
    "cli-secret",
    "env-secret",
    "config-secret",
    "high-entropy",
    "unreadable",
)

# (start, end, rank, kind): a lower rank names the secret more precisely and wins when spans overlap.
_Cand = tuple[int, int, int, str]

_RANK_PRIVATE_KEY = 0
_RANK_VENDOR = 10
_RANK_AWS_SECRET = 15
_RANK_POSITION = 20
_RANK_ASSIGNMENT = 30
_RANK_ENTROPY = 40

_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_MARKER = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


def _left_ok(text: str, start: int) -> bool:
    """The match does not continue a word on its left (``task-...`` is not an ``sk-`` key)."""
    return start == 0 or text[start - 1] not in _WORD


# --- vendor keys, JWTs -------------------------------------------------------------------------------
# Every key below is a run of at least 20 base64url characters (letters, digits, ``_``, ``-``) that
# starts with its vendor's prefix, or follows it (``ya29.``, ``SG.``, ``1//``, a Telegram bot id). So the
# text is mapped to one byte per character, base64url characters to ``a`` and all else to a blank; the
# runs of 20 ``a`` are found with ``bytes.find``, and only a run's first characters are compared with
# the prefixes. Text with no such run (most prose, most short rows) costs one translation and one find.

_B64URL = "[A-Za-z0-9_-]"
_RUN_TABLE = bytes(
    ord("a") if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "_-") else ord(" ") for b in range(256)
)
_RUN = b"a" * 20


class _Vendor:
    """A vendor's key: the prefixes a run starts with, the regex matched there, and its kind."""

    __slots__ = ("check", "kind", "prefixes", "regex")

    def __init__(
        self, kind: str, prefixes: tuple[str, ...], pattern: str, check: Callable[[str], bool] | None = None
    ) -> None:
        self.kind = kind
        self.prefixes = prefixes
        self.regex = re.compile(pattern)
        self.check = check


def _pem_in_base64(value: str) -> bool:
    """``LS0tLS1CRUdJTi...`` is a PEM block in base64 (kubeconfig's client-key-data): a private key?"""
    head = value[:64]
    try:
        return b"PRIVATE KEY" in base64.b64decode(head[: len(head) // 4 * 4])
    except ValueError:
        return False


_VENDORS: tuple[_Vendor, ...] = (
    _Vendor("aws-access-key-id", ("AKIA", "ASIA"), r"A(?:KIA|SIA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
    _Vendor(
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        r"gh[pousr]_[A-Za-z0-9]{36,251}(?![A-Za-z0-9])",
    ),
    _Vendor("github-token", ("github_pat_",), r"github_pat_[A-Za-z0-9]{20,}_[A-Za-z0-9]{30,}"),
    _Vendor("gitlab-token", ("glpat-",), rf"glpat-{_B64URL}{{20,}}(?:\.{_B64URL}+)*"),
    _Vendor("slack-token", ("xox",), r"xox[abposre]-[0-9][A-Za-z0-9-]{9,}"),
    _Vendor("slack-token", ("xapp-",), r"xapp-[0-9]-[A-Za-z0-9-]{10,}"),
    # Stripe's publishable keys (pk_live_) are public by design and stay.
    _Vendor(
        "stripe-key",
        ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
        r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",
    ),
    _Vendor("stripe-key", ("whsec_",), r"whsec_[A-Za-z0-9]{24,}"),
    _Vendor(
        "openai-key",
        ("sk-",),
        rf"sk-(?:(?P<anthropic>ant-[a-z]+[0-9]*-{_B64URL}{{20,}})|(?P<openrouter>or-v1-[a-f0-9]{{64}})"
        rf"|(?:proj|svcacct|admin)-{_B64URL}{{20,}}|[A-Za-z0-9]{{32,}}(?![A-Za-z0-9_-]))",
    ),
    _Vendor("google-api-key", ("AIza",), rf"AIza{_B64URL}{{35}}(?!{_B64URL})"),
    _Vendor("google-oauth", ("GOCSPX-",), rf"GOCSPX-{_B64URL}{{20,}}"),
    _Vendor("huggingface-token", ("hf_",), r"hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])"),
    _Vendor("npm-token", ("npm_",), r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    _Vendor("pypi-token", ("pypi-AgE",), rf"pypi-AgE{_B64URL}{{50,}}"),
    _Vendor("twilio-key", ("SK",), r"SK[0-9a-fA-F]{32}(?![A-Za-z0-9])"),
    _Vendor(
        "provider-key",
        ("gsk_", "xai-", "pplx-", "tvly-", "r8_", "dop_v1_"),
        r"(?:gsk_[A-Za-z0-9]{48,}|xai-[A-Za-z0-9]{60,}|pplx-[A-Za-z0-9]{40,}"
        r"|tvly-(?:dev-|prod-)?[A-Za-z0-9]{28,}|r8_[A-Za-z0-9]{30,}|dop_v1_[a-f0-9]{64})(?![A-Za-z0-9])",
    ),
    # base64 of "-----BEGIN ...PRIVATE KEY-----", as kubeconfig and some CI variables hold a key
    _Vendor("private-key", ("LS0tLS1CRUdJTi",), r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}", _pem_in_base64),
    _Vendor("jwt", ("eyJ",), rf"eyJ{_B64URL}{{8,}}\.eyJ{_B64URL}{{8,}}\.{_B64URL}*"),
)
_PREFIXES = tuple(p for v in _VENDORS for p in v.prefixes)
_JWT = _VENDORS[-1].regex
# Keys whose run follows a fixed text: (what precedes the run, regex matched from there, kind).
_AFTER: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("ya29.", re.compile(rf"ya29\.{_B64URL}{{20,}}"), "google-oauth"),
    ("1//", re.compile(rf"1//0{_B64URL}{{30,}}"), "google-oauth"),
    ("SG.", re.compile(rf"SG\.{_B64URL}{{22}}\.{_B64URL}{{43}}(?!{_B64URL})"), "sendgrid-key"),
)
_STARTS = (*_PREFIXES, "AA")
_BEFORE = (*(a for a, _, _ in _AFTER), ".")
_TELEGRAM = re.compile(rf"AA{_B64URL}{{33}}(?!{_B64URL})")
_SLACK_WEBHOOK = re.compile(r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/-]{10,})")


def _scan_vendors(text: str, runs: bytes, out: list[_Cand]) -> None:
    p = runs.find(_RUN)
    if p == -1:
        return
    n = len(text)
    while p != -1:
        run = runs.rfind(b" ", 0, p) + 1
        run_end = runs.find(b" ", p)
        run_end = n if run_end == -1 else run_end
        rs = run
        while rs < run_end and text[rs] == "-":
            rs += 1  # a key after a dash: --ghp_...
        if text.startswith(_STARTS, rs):
            _key_at(text, rs, out)
        if text.endswith(_BEFORE, 0, run):
            _key_before(text, run, out)
        p = runs.find(_RUN, run_end)
    if "hooks.slack.com/" in text:
        for m in _SLACK_WEBHOOK.finditer(text):
            out.append((*m.span(1), _RANK_VENDOR, "slack-webhook"))


def _key_at(text: str, rs: int, out: list[_Cand]) -> None:
    """A key that starts the run at ``rs``."""
    if text.startswith("AA", rs):
        m = _TELEGRAM.match(text, rs)
        bot_id = _telegram_bot_id(text, rs - 1) if m is not None and text.endswith(":", 0, rs) else -1
        if m is not None and bot_id != -1:
            out.append((bot_id, m.end(), _RANK_VENDOR, "telegram-token"))
        return
    if not _left_ok(text, rs):
        return
    for v in _VENDORS:
        if text.startswith(v.prefixes, rs):
            m = v.regex.match(text, rs)
            # hf_xxxxxxxx... is a placeholder
            if m is not None and len(set(m[0])) >= 8 and (v.check is None or v.check(m[0])):
                kind = f"{m.lastgroup}-key" if m.lastgroup else v.kind
                out.append((rs, m.end(), _RANK_VENDOR, kind))
            return


def _key_before(text: str, rs: int, out: list[_Cand]) -> None:
    """A key whose run at ``rs`` follows a fixed text, or a JWT found by its payload."""
    if text.startswith("eyJ", rs) and text.endswith(".", 0, rs):
        # a JWT whose header is shorter than 20 characters ({"alg":"none"}): its payload's run found it
        head = text.rfind("eyJ", max(0, rs - 1024), rs - 1)
        m = _JWT.match(text, head) if head != -1 and _left_ok(text, head) else None
        if m is not None and m.end() > rs:
            out.append((head, m.end(), _RANK_VENDOR, "jwt"))
    for before, regex, kind in _AFTER:
        if text.endswith(before, 0, rs):
            m = regex.match(text, rs - len(before))
            if m is not None and _left_ok(text, rs - len(before)):
                out.append((*m.span(), _RANK_VENDOR, kind))


def _telegram_bot_id(text: str, colon: int) -> int:
    """Where the bot id of ``<bot id>:AA...`` starts (8 to 10 digits before the colon), or -1."""
    s = colon
    while s > 0 and text[s - 1].isdigit() and colon - s <= 10:
        s -= 1
    # in a Bot API URL, api.telegram.org/bot<token>/getMe, the id follows "bot"
    ok = 8 <= colon - s <= 10 and (_left_ok(text, s) or text.endswith("bot", 0, s))
    return s if ok else -1


# --- private keys --------------------------------------------------------------------------------------

_PEM_BEGIN = re.compile(r"-----BEGIN (?P<label>(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----")
# Without its END line (a clipped tool output, ``head id_rsa``), the body is the run of base64 and
# armor-header lines (``Proc-Type: 4,ENCRYPTED``) after BEGIN, newlines real or JSON-escaped.
_PEM_BASE64 = re.compile(r"[A-Za-z0-9+/=]{16}")
_PEM_ARMOR = re.compile(r"(?:(?:\r?\n|\\r?\\n)[ \t]*(?:[A-Za-z][A-Za-z0-9-]*: [^\n\\]*|[A-Za-z0-9+/=]+)?)*")


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    """Drop blanks and escaped newlines at both ends, so the marker sits between BEGIN and END lines."""
    while s < e:
        if text[s] in " \t\r\n":
            s += 1
        elif text.startswith(("\\n", "\\r"), s):
            s += 2
        else:
            break
    while e > s:
        if text[e - 1] in " \t\r\n":
            e -= 1
        elif e - s >= 2 and text[e - 2] == "\\" and text[e - 1] in "nr":
            e -= 2
        else:
            break
    return s, e


def _scan_private_keys(text: str, out: list[_Cand]) -> None:
    for m in _PEM_BEGIN.finditer(text):
        body = m.end()
        following = text.find("-----BEGIN ", body)
        end = text.find(f"-----END {m['label']}-----", body, len(text) if following == -1 else following)
        if end == -1:
            armor = _PEM_ARMOR.match(text, body)
            end = armor.end() if armor else body
        s, e = _trim(text, body, end)
        if _PEM_BASE64.search(text, s, e):  # not "BEGIN PRIVATE KEY ... END PRIVATE KEY" in prose
            out.append((s, e, _RANK_PRIVATE_KEY, "private-key"))


# --- URLs ----------------------------------------------------------------------------------------------

_URL_USERINFO = re.compile(
    r"://(?:(?P<user>[^\s:/?#@\"'<>\[\]{}]*):(?P<pw>[^\s/?#@\"'<>]+)|(?P<tok>[A-Za-z0-9._~%-]{16,}))@"
)


# A signature in a query string is the credential of a pre-signed URL (S3, GCS, Azure SAS): whoever
# holds the URL holds the access. Other credentials in a query string are found by their name below.
_SIGNATURES = (b"sig=", b"signature=")
_SIGNATURE_NAME = re.compile(rb"[?&](?:[a-z0-9]+-)*\Z")
_SIGNATURE_VALUE = re.compile(r"[^&#\s\"'<>]{8,1024}")


def _scan_urls(text: str, out: list[_Cand]) -> None:
    for m in _URL_USERINFO.finditer(text):
        if m["pw"] is not None:
            if not _is_placeholder(m["pw"]):
                out.append((*m.span("pw"), _RANK_POSITION, "url-password"))
        elif _high_entropy(m["tok"]):
            out.append((*m.span("tok"), _RANK_POSITION, "url-password"))


def _scan_signatures(text: str, low: bytes, out: list[_Cand]) -> None:
    for needle in _SIGNATURES:
        i = low.find(needle)
        while i != -1:
            # ?sig=, &X-Amz-Signature=, &X-Goog-Signature=
            if _SIGNATURE_NAME.search(low, max(0, i - 40), i):
                m = _SIGNATURE_VALUE.match(text, i + len(needle))
                if m is not None and not _is_placeholder(m[0]):
                    out.append((*m.span(), _RANK_POSITION, "url-param"))
            i = low.find(needle, i + len(needle))


# --- values and their names ----------------------------------------------------------------------------

# The words a secret's name ends with, searched in the lowercased text, each with the endings it may
# take (``pass`` -> ``password``). A hit is judged only where the name ends: ``tokens`` and ``key_id``
# are left at once. ``auth`` also finds Authorization headers.
_KEYWORDS: tuple[tuple[bytes, tuple[bytes, ...]], ...] = (
    (b"token", (b"",)),
    (b"secret", (b"",)),
    (b"pass", (b"word", b"wd", b"phrase", b"")),
    (b"key", (b"",)),
    (b"auth", (b"",)),
    (b"pwd", (b"",)),
)
_NAME_SET = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_.-")

_KEY_QUALIFIERS = (
    "api",
    "access",
    "secret",
    "private",
    "client",
    "auth",
    "signing",
    "encryption",
    "master",
    "app",
    "consumer",
    "license",
    "account",
    "service",
    "storage",
    "subscription",
    "webhook",
    "deploy",
    "admin",
    "sas",
    "shared",
)
# A name that ends with one of these says its value is a secret.
_STRONG = tuple(
    w.encode()
    for w in (
        "token",
        "secret",
        "password",
        "passwd",
        "passphrase",
        "_pass",
        "-pass",
        ".pass",
        "_pwd",
        "-pwd",
        ".pwd",
        *(q + sep + "key" for q in _KEY_QUALIFIERS for sep in ("", "_", "-", ".")),
    )
)
# A name that ends with one of these may hold a secret: only a high-entropy value is redacted.
_WEAK = (b"key", b"auth")
# Public halves of key pairs are no secret.
_NOT_SECRET = (b"public_key", b"publickey", b"public-key", b"pubkey")

_ASSIGN_TAIL = re.compile(
    r"""(?P<nq>\\?["'])?(?P<sp1>[ \t]*)
    (?P<sep>=>|:=|=(?![=~>])
      |:[ \t]*[A-Za-z_][\w.]*(?:\[[^\]\n]*\])?[ \t]+=(?![=~>])   # Python annotation: token: str = "..."
      |:(?![:/=]))
    (?P<sp2>[ \t]*)
    (?:(?P<q>\\?["'`])(?P<qv>(?:(?!(?P=q))(?:[^\n\\]|\\.)){0,4096})(?P=q)
      |(?P<uv>[^\s"'`,;&<>\\]{1,1024}))""",
    re.VERBOSE,
)
_FLAG_TAIL = re.compile(
    r"""[ \t]+(?:(?P<q>["'])(?P<qv>[^"'\n]{0,4096})(?P=q)|(?P<uv>[^\s"'`;&|<>\\-][^\s"'`;&|<>\\]{0,1023}))"""
)
# What may stand before a name that starts a line of a config file, and after its value.
_LINE_LEAD_COLON = re.compile(r"[ \t]*(?:- )?")
_LINE_LEAD_EQUALS = re.compile(r"(?:(?:export|set|ENV|ARG)[ \t]+)?")
_YAML_VALUE = re.compile(r"[^\s#]\S{0,1023}")
_LINE_END = re.compile(r"[ \t]*(?:[#;][^\n]*)?(?:\r?\n|$)")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")

# Values that are not secrets: references to one, placeholders, types, literals of the language.
_PLACEHOLDER = re.compile(
    r"""(?ix)(?:
        [$%{<@«]|\*\*\*|\[REDACTED:|[a-z][a-z0-9+.-]*://
      | your[-_ ]|os\.(?:environ|getenv)|process\.env|getenv\(|env\(|env\[|secrets\.
      | (?:none|null|nil|true|false|undefined|yes|no|on|off|empty|required|optional|changeme|redacted
          |str|string|int|bool|bytes|float|number|any|secretstr|secret_str
          |password|passwd|pass|pw|pwd|secret|token|key|apikey|api_key|api-key)\Z)"""
)
# Filler inside a value: hf_xxxx..., sk-abc...wxyz, ***, a {template} or a $(command) / ${variable}
_FILLERS = ("xxxx", "XXXX", "****", "...", "…", "$(", "${")
_TEMPLATE = re.compile(r"\{[^{}\s]*\}")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# settings.API_KEY, self.token, cfg.apiKey: names joined by dots, each snake_case, CONSTANT or camelCase
_CODE_NAME = r"(?:[a-z_$][a-z0-9_$]*|[A-Z][A-Z0-9_]*|[A-Za-z_$][a-z_$]*(?:[A-Z][a-z_$]*)*)"
_CODE_REF = re.compile(rf"{_CODE_NAME}(?:(?:\.|->|::){_CODE_NAME})+")
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|->|::)[A-Za-z_$][\w$]*)+")
_CAMEL_TYPE = re.compile(r"(?:[A-Z][a-z]+){2,}")
_SCREAMING = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_NOT_ALNUM = re.compile(r"[^a-z0-9]")
_PATH = re.compile(r"(?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]+)*/?")
_AWS_SECRET_VALUE = re.compile(r"[A-Za-z0-9/+]{40}")
_HEXISH = re.compile(r"[0-9a-fA-F-]+")
# Capitalised words (each with a vowel), acronyms and numbers run together: a name, not noise
_NAME_LIKE = re.compile(r"[a-z]*(?:[A-Z](?=[a-z]{2})[a-z]*[aeiouy][a-z]*|[A-Z]{2,}(?![a-z])|[0-9]+)+")
_TOKENISH = re.compile(r"[A-Za-z0-9+/=_.~-]+")
_CLOSERS = {")": "(", "]": "[", "}": "{"}


def _is_placeholder(value: str) -> bool:
    if _PLACEHOLDER.match(value) or value.endswith("***") or any(f in value for f in _FILLERS):
        return True
    return "{" in value and _TEMPLATE.search(value) is not None


def _high_entropy(value: str) -> bool:
    """A random-looking token: 20+ characters of three classes, not hex (SHAs, hashes, UUIDs)."""
    n = len(value)
    if n < 20 or _HEXISH.fullmatch(value) or not _TOKENISH.fullmatch(value):
        return False
    if not (
        any(c.isdigit() for c in value)
        and any(c.islower() for c in value)
        and any(c.isupper() for c in value)
    ):
        return False
    if _NAME_LIKE.fullmatch(value):
        return False  # PKCS12PrivateKeyTypes: words, not noise
    entropy = -sum(k / n * math.log2(k / n) for k in Counter(value).values())
    return entropy >= 3.5


def _strip_closers(value: str) -> str:
    """``f(token=abc123):`` gives ``abc123):``: drop brackets the value did not open, and ``.`` or ``:``."""
    while (
        value
        and value[-1] in ")]}.:"
        and (value[-1] in ".:" or value.count(value[-1]) > value.count(_CLOSERS[value[-1]]))
    ):
        value = value[:-1]
    return value


def _squash(name: str) -> str:
    return _NOT_ALNUM.sub("", name.lower())


def _looks_random(value: str) -> bool:
    """Digits, mixed case or symbols: ``"copilot-acp"`` and ``"NO_REPLY"`` are names, not keys."""
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return mixed_case or any(c.isdigit() or not (c.isalnum() or c in "-_. ") for c in value)


class _Assignment:
    """A ``name <sep> value`` whose name says secret, and the judgement of its value."""

    __slots__ = ("constant", "env", "flag", "header", "line", "name", "quoted", "strong", "url", "value")

    def __init__(
        self,
        name: str,
        name_quoted: bool,
        strong: bool,
        sep: str,
        spaced: bool,
        quoted: bool,
        value: str,
        line: bool,
        url: bool,
    ) -> None:
        low = name.lower()
        self.name = low
        self.strong = strong
        self.quoted = quoted
        self.value = value
        self.line = line
        self.url = url
        # a flag or a header as written on a command line or in a request, not a key of a dict naming one
        self.flag = name.startswith("--") and not name_quoted
        self.header = (
            sep == ":" and not name_quoted and (low.startswith("x-") or low in ("api-key", "private-token"))
        )
        # NAME = value: an environment variable or a constant, named as such; NAME=value in a .env file or
        # a shell: whatever follows the = is the value
        self.constant = sep == "=" and not name_quoted and _ENV_NAME.fullmatch(name) is not None
        self.env = self.constant and not spaced

    def kind(self) -> str | None:
        """The kind of secret the value is, or ``None`` when it is none."""
        value = self.value
        if not value or _is_placeholder(value) or _SCREAMING.fullmatch(value):
            return None  # SCREAMING_CASE is the name of a variable: "SUDO_PASSWORD" in os.environ
        squashed = _squash(value) if len(value) <= 64 else ""
        if squashed and _squash(self.name).endswith(squashed):
            return None  # CHALLENGE_PASSWORD: "challengePassword" names itself
        if _PATH.fullmatch(value) and not _high_entropy(value):
            return None  # --client-secret /path/to/client_secret.json names the file that holds it
        if not self.strong:
            if not (self.quoted or self.line or self.env or self.url):
                return None  # ``key`` alone is too common a name to judge in running code or prose
            return ("url-param" if self.url else "high-entropy") if _high_entropy(value) else None
        password = "pass" in self.name or "pwd" in self.name
        if len(value) < (4 if password else 8):
            return None
        if self.quoted:
            if not password and (" " in value or not (self.env or _looks_random(value))):
                return None  # "My API Key", "ollama": a key or token is random; a password may be anything
        elif not self._written(value):
            return None
        if _squash(self.name).endswith("secretaccesskey") and _AWS_SECRET_VALUE.fullmatch(value):
            return "aws-secret-key"
        if self.url:
            return "url-param"
        if self.flag:
            return "cli-secret"
        if self.header:
            return "header-secret"
        return "env-secret" if self.constant else "config-secret"

    def _written(self, value: str) -> bool:
        """Whether an unquoted value is written out, not code naming another value."""
        if "(" in value or "[" in value:
            return False  # get_key(), cfg["key"]
        literal = self.env or self.flag  # a .env file or a command line: a.b and hunter are values
        config = self.line or self.header or self.url  # YAML, INI, a header, a query string
        if config and _CODE_REF.fullmatch(value):
            return False  # apiKey: config.apiKey
        if not (literal or config) and _DOTTED.fullmatch(value):
            return False  # in running code, settings.API_KEY and crypto.Ed25519PrivateKey are names
        if value.isdigit():
            return len(value) >= 6  # max_token=4096 is a count
        if not _IDENT.fullmatch(value):
            return True
        if self.line and not self.env and _CAMEL_TYPE.fullmatch(value):
            return False  # api_key: SecretStr
        if self.env or config:
            return True
        if self.flag:
            return _looks_random(value)  # "the --password option" in prose
        # In code a bare word is a variable (api_key=api_key, token=user_token); hunter2 is not, nor noise.
        return _high_entropy(value) or (
            any(c.isdigit() for c in value)
            and any(c.islower() for c in value)
            and "_" not in value
            and not value[0].isupper()
        )


def _scan_names(text: str, low: bytes, out: list[_Cand]) -> None:
    n = len(low)
    for kw, endings in _KEYWORDS:
        i = low.find(kw)
        while i != -1:
            j = i + len(kw)
            if kw == b"auth" and low.startswith(b"orization", j):
                _scan_authorization(text, j + 9, out)
            else:
                for ending in endings:
                    if low.startswith(ending, j):
                        break
                ne = j + len(ending)
                if ne >= n or low[ne] not in _NAME_SET:
                    _judge_name(text, low, i, ne, out)
            i = low.find(kw, j)


def _judge_name(text: str, low: bytes, i: int, ne: int, out: list[_Cand]) -> None:
    """Judge the name that ends at ``ne`` (its keyword starts at ``i``) and the value given to it."""
    floor = max(0, ne - 40)
    strong = low.endswith(_STRONG, floor, ne)
    bare_pass = ne == i + 4 and low.startswith(b"pass", i)  # ``pass`` alone is a name only if assigned
    if not (strong or bare_pass or low.endswith(_WEAK, floor, ne)) or low.endswith(_NOT_SECRET, floor, ne):
        return
    m = _ASSIGN_TAIL.match(text, ne)
    if m is not None and m["sep"] == ":" and not m["nq"] and not m["sp2"]:
        m = None  # ``token:abc`` is no assignment: YAML and headers put a blank after the colon
    ns = i
    while ns > 0 and low[ns - 1] in _NAME_SET:
        ns -= 1
    if ns < i and ns > 0 and text[ns - 1] == "\\" and text[ns] in "nrt":
        ns += 1  # ``\nDB_PASSWORD=``: a .env line inside a JSON string starts after the escaped newline
    if bare_pass:
        if ns != i:
            return
        strong = True
    name = text[ns:ne]
    flag = None
    if m is None:
        if not name.startswith("--"):
            return
        flag = _FLAG_TAIL.match(text, ne)
        if flag is None:
            return
    url = ns > 0 and text[ns - 1] in "?&#"
    tail = m if m is not None else flag
    if tail is None:
        return
    quoted = tail["qv"] is not None
    group = "qv" if quoted else "uv"
    vs, ve = tail.span(group)
    value = tail[group]
    if not quoted:
        if url:
            value = value.split("#", 1)[0]
        value = _strip_closers(value)
        ve = vs + len(value)
    sep = "" if m is None else m["sep"]
    sep = ":" if sep == ":" else ("=" if sep.endswith("=") else sep)
    spaced = m is not None and bool(m["sp1"] or m["sp2"])
    line = False
    # A config line starts with its name, after at most some indentation, ``- `` or ``export ``.
    line_start = text.rfind("\n", max(0, ns - 256), ns) + 1
    if not quoted and (line_start > 0 or ns <= 256):
        if sep == ":" and _LINE_LEAD_COLON.fullmatch(text, line_start, ns) is not None:
            # YAML: the value is the rest of the line but a comment (``password: Tr0ub4dor&3``)
            rest = _YAML_VALUE.match(text, vs)
            if rest is not None and not rest[0].endswith(",") and _LINE_END.match(text, rest.end()):
                line, ve = True, rest.end()
                value = text[vs:ve]
        elif sep == "=" and _LINE_END.match(text, ve) is not None:
            # INI and .properties; ``name = value`` at the start of a line is also Python, so a spaced
            # one counts only if its value is no name (aws_secret_access_key = wJalr...)
            line = _LINE_LEAD_EQUALS.fullmatch(text, line_start, ns) is not None and (
                not spaced or (_looks_random(value) and not _DOTTED.fullmatch(value))
            )
    kind = _Assignment(
        name, m is not None and bool(m["nq"]), strong, sep, spaced, quoted, value, line, url and sep == "="
    ).kind()
    if kind is not None:
        rank = {"high-entropy": _RANK_ENTROPY, "aws-secret-key": _RANK_AWS_SECRET}.get(kind, _RANK_ASSIGNMENT)
        out.append((vs, ve, rank, kind))


# --- positions that say credential ---------------------------------------------------------------------

_AUTH_TAIL = re.compile(
    r"""\\?["']?[ \t]*[:=][ \t]*\\?["']?[ \t]*"""
    r"""(?:(?P<scheme>[A-Za-z][A-Za-z0-9_-]*)[ \t]+)?(?P<v>[A-Za-z0-9._~+/=-]+)(?![^\s"'\\,;])"""
)
_AUTH_SCHEMES = frozenset(
    {
        "bearer",
        "token",
        "bot",
        "basic",
        "apikey",
        "api-key",
        "key",
        "sso-key",
        "oauth",
        "jwt",
        "negotiate",
        "mac",
        "hmac",
        "splunk",
    }
)
_CURL_USER = re.compile(
    r"""(?:^|[ \t])(?:-u|--user)(?:[ \t]+|=)(?P<q>["']?)(?P<user>[^\s:"']*):(?P<pw>[^\s"']+)(?P=q)"""
)


def _scan_authorization(text: str, at: int, out: list[_Cand]) -> None:
    """``Authorization: <scheme> <credentials>`` (and Proxy-Authorization), in a header, JSON or code."""
    m = _AUTH_TAIL.match(text, at)
    if m is None:
        return
    scheme = (m["scheme"] or "").lower()
    value = m["v"]
    if scheme and scheme not in _AUTH_SCHEMES:
        return  # Digest and AWS4-HMAC-SHA256 (no secret in the clear), or prose
    if not scheme and (value.lower() in _AUTH_SCHEMES or not any(c.isdigit() for c in value)):
        return
    if len(value) < 8 or _is_placeholder(value):
        return
    out.append((*m.span("v"), _RANK_POSITION, "basic-auth" if scheme == "basic" else "bearer-token"))


def _scan_curl(text: str, low: bytes, out: list[_Cand]) -> None:
    """``curl -u user:password``: Basic credentials given on the command line."""
    i = low.find(b"curl")
    while i != -1:
        end = text.find("\n", i)
        end = len(text) if end == -1 else end
        for m in _CURL_USER.finditer(text, i + 4, end):
            if not _is_placeholder(m["pw"]) and not m["pw"].isdigit():
                out.append((*m.span("pw"), _RANK_POSITION, "basic-auth"))
        i = low.find(b"curl", end)


# --- putting it together -------------------------------------------------------------------------------


def _candidates(text: str) -> list[_Cand]:
    out: list[_Cand] = []
    # One byte per character (anything not ASCII becomes "?"), so byte offsets are text offsets.
    ascii_text = text.encode("ascii", "replace")
    low = ascii_text.lower()
    _scan_vendors(text, ascii_text.translate(_RUN_TABLE), out)
    if "-----BEGIN " in text:
        _scan_private_keys(text, out)
    if "://" in text and "@" in text:
        _scan_urls(text, out)
    _scan_signatures(text, low, out)
    _scan_names(text, low, out)
    _scan_curl(text, low, out)
    return out


def _resolve(text: str, cands: list[_Cand]) -> list[tuple[str, int, int]]:
    """Drop what is already a marker, merge overlapping spans; the lowest rank names the merged span."""
    merged: list[_Cand] = []
    for s, e, rank, kind in sorted(cands):
        if e <= s or _MARKER.fullmatch(text, s, e):
            continue
        if merged and s < merged[-1][1]:
            ls, le, lrank, lkind = merged[-1]
            merged[-1] = (ls, max(le, e), *((rank, kind) if rank < lrank else (lrank, lkind)))
        else:
            merged.append((s, e, rank, kind))
    return [(kind, s, e) for s, e, _, kind in merged]


def find_secrets(text: str) -> list[tuple[str, int, int]]:
    """The secrets in ``text`` as ``(kind, start, end)``, in order, not overlapping.

    :param text: any text; never raises. If scanning fails, the whole text is reported as one
        ``unreadable`` span, so :func:`redact` fails closed.
    """
    if not text:
        return []
    try:
        return _resolve(text, _candidates(text))
    except Exception:  # a redactor must not let a bug show a secret, nor stop the indexer
        return [] if _MARKER.fullmatch(text) else [("unreadable", 0, len(text))]


def redact(text: str) -> str:
    """``text`` with API keys, tokens, passwords in URLs and private keys replaced by a marker.

    Each secret becomes ``[REDACTED:<kind>]`` and the text around it is kept. Idempotent, never raises.
    """
    spans = find_secrets(text)
    if not spans:
        return text
    parts: list[str] = []
    pos = 0
    for kind, s, e in spans:
        parts.append(text[pos:s])
        parts.append(f"[REDACTED:{kind}]")
        pos = e
    parts.append(text[pos:])
    return "".join(parts)


def redact_lines(lines: Sequence[str]) -> list[str]:
    """``lines`` redacted as one text, as many lines back.

    A private key written by an edit arrives as a list of lines, and no single line of its body has the
    shape that finds it; so the lines are joined, scanned whole, and in each line the part a secret covers
    becomes the secret's marker (a line wholly inside one is just the marker). Never raises.
    """
    if len(lines) < 2:
        return [redact(line) for line in lines]
    joined = "\n".join(lines)
    spans = find_secrets(joined)
    if not spans:
        return list(lines)
    out: list[str] = []
    start = 0
    for line in lines:
        end = start + len(line)
        parts: list[str] = []
        pos = start
        for kind, s, e in spans:
            if e <= start or s >= end or (s == e):
                continue
            a, b = max(s, start), min(e, end)
            parts.append(joined[pos:a])
            if b > a:
                parts.append(f"[REDACTED:{kind}]")
            pos = b
        parts.append(joined[pos:end])
        out.append("".join(parts))
        start = end + 1
    return out
