"""Secrets redaction: every documented kind is found in realistic lines, ordinary text is left alone.

The corpus is ``tests/data/secrets/`` (see its README): placeholders there expand to fresh fake keys of
each vendor's documented format, so no well-formed key is committed.
"""

from __future__ import annotations

import base64
import json
import os
import random
import re
import string
import struct
import uuid
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from hermes_trail import redact as redact_module
from hermes_trail.redact import KINDS, find_secrets, redact, redact_lines

DATA = Path(__file__).parent / "data" / "secrets"
# Fresh bodies for every generated key: REDACT_CORPUS_SEED=17 pytest tests/test_redact.py
SEED = os.environ.get("REDACT_CORPUS_SEED", "")
PLACEHOLDER = re.compile(r"«(?P<kind>[a-z0-9-]+)(?:(?::(?P<gen>[a-z0-9-]+))|=(?P<literal>[^»]*))»")

DIGITS = string.digits
HEX = "0123456789abcdef"
UPPER = string.ascii_uppercase
ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "-_"
B64 = ALNUM + "+/"


def pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def mixed(rng: random.Random, alphabet: str, n: int) -> str:
    """Random text that has upper case, lower case and digits, as any real key of that length has."""
    while True:
        s = pick(rng, alphabet, n)
        if any(c.isupper() for c in s) and any(c.islower() for c in s) and any(c.isdigit() for c in s):
            return s


def with_dash(rng: random.Random, n: int) -> str:
    """base64url with a ``-`` and a ``_`` inside: no long run of letters and digits to lean on."""
    s = list(mixed(rng, B64URL, n))
    s[n // 3], s[2 * n // 3] = "-", "_"
    return "".join(s)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt(rng: random.Random, header: dict[str, str]) -> str:
    payload = {"sub": pick(rng, DIGITS, 10), "iat": 1735689600, "exp": 1735693200, "scope": "read write"}
    parts = [
        b64url(json.dumps(header, separators=(",", ":")).encode()),
        b64url(json.dumps(payload, separators=(",", ":")).encode()),
    ]
    sig = b64url(rng.randbytes(32)) if header["alg"] != "none" else ""
    return ".".join([*parts, sig])


def pem(
    rng: random.Random, label: str, size: int, *, newline: str = "\n", armor: str = "", end: bool = True
) -> tuple[str, int, int]:
    """A PEM block of random base64; the secret is its body, between the BEGIN and END lines."""
    data = b64(rng.randbytes(size))
    lines = [data[i : i + 64] for i in range(0, len(data), 64)]
    if not end:
        lines = lines[:3]
    head = f"-----BEGIN {label}-----{newline}"
    body = armor + newline.join(lines)
    tail = f"{newline}-----END {label}-----" if end else ""
    return head + body + tail, len(head), len(head) + len(body)


def whole(value: str) -> tuple[str, int, int]:
    return value, 0, len(value)


def png(rng: random.Random) -> str:
    """A real 32x32 RGB PNG of noise, in base64: what a screenshot tool result carries."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + rng.randbytes(32 * 3) for _ in range(32))
    image = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 32, 32, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )
    return b64(image)


Gen = Callable[[random.Random], tuple[str, int, int]]
GENERATORS: dict[str, Gen] = {
    "akia": lambda r: whole("AKIA" + pick(r, UPPER + "234567", 16)),
    "asia": lambda r: whole("ASIA" + pick(r, UPPER + "234567", 16)),
    "aws-secret": lambda r: whole(mixed(r, ALNUM + "+/", 40)),
    **{p: (lambda r, p=p: whole(f"{p}_" + mixed(r, ALNUM, 36))) for p in ("ghp", "gho", "ghu", "ghs", "ghr")},
    "github-pat": lambda r: whole("github_pat_" + mixed(r, ALNUM, 22) + "_" + mixed(r, ALNUM, 59)),
    "glpat": lambda r: whole("glpat-" + with_dash(r, 20)),
    "xoxb": lambda r: whole(f"xoxb-{pick(r, DIGITS, 12)}-{pick(r, DIGITS, 13)}-{mixed(r, ALNUM, 24)}"),
    "xoxp": lambda r: whole(
        f"xoxp-{pick(r, DIGITS, 12)}-{pick(r, DIGITS, 12)}-{pick(r, DIGITS, 13)}-{pick(r, HEX, 32)}"
    ),
    "xapp": lambda r: whole(
        f"xapp-1-A{pick(r, UPPER + DIGITS, 10)}-{pick(r, DIGITS, 13)}-{pick(r, HEX, 64)}"
    ),
    "slack-webhook": lambda r: whole(
        f"T{pick(r, UPPER + DIGITS, 8)}/B{pick(r, UPPER + DIGITS, 10)}/{mixed(r, ALNUM, 24)}"
    ),
    "sk-live": lambda r: whole("sk_live_" + mixed(r, ALNUM, 99)),
    "sk-test": lambda r: whole("sk_test_" + mixed(r, ALNUM, 24)),
    "rk-live": lambda r: whole("rk_live_" + mixed(r, ALNUM, 24)),
    "whsec": lambda r: whole("whsec_" + mixed(r, ALNUM, 32)),
    "sk-proj": lambda r: whole("sk-proj-" + with_dash(r, 74) + "T3BlbkFJ" + with_dash(r, 74)),
    "sk-legacy": lambda r: whole("sk-" + mixed(r, ALNUM, 20) + "T3BlbkFJ" + mixed(r, ALNUM, 20)),
    "sk-svcacct": lambda r: whole("sk-svcacct-" + with_dash(r, 74) + "T3BlbkFJ" + with_dash(r, 74)),
    "sk-ant": lambda r: whole("sk-ant-api03-" + with_dash(r, 93) + "AA"),
    "sk-or": lambda r: whole("sk-or-v1-" + pick(r, HEX, 64)),
    "aiza": lambda r: whole("AIzaSy" + with_dash(r, 33)),
    "ya29": lambda r: whole("ya29.a0" + with_dash(r, 120)),
    "gocspx": lambda r: whole("GOCSPX-" + with_dash(r, 28)),
    "google-refresh": lambda r: whole("1//0g" + with_dash(r, 98)),
    "hf": lambda r: whole("hf_" + pick(r, string.ascii_letters, 34)),
    "npm": lambda r: whole("npm_" + mixed(r, ALNUM, 36)),
    "pypi": lambda r: whole("pypi-AgEIcHlwaS5vcmc" + with_dash(r, 160)),
    "twilio-sk": lambda r: whole("SK" + pick(r, HEX, 32)),
    "sendgrid": lambda r: whole("SG." + with_dash(r, 22) + "." + with_dash(r, 43)),
    "telegram": lambda r: whole(r.choice("5678") + pick(r, DIGITS, 9) + ":AA" + with_dash(r, 33)),
    "gsk": lambda r: whole("gsk_" + mixed(r, ALNUM, 52)),
    "xai": lambda r: whole("xai-" + mixed(r, ALNUM, 80)),
    "pplx": lambda r: whole("pplx-" + mixed(r, ALNUM, 48)),
    "tvly": lambda r: whole("tvly-dev-" + mixed(r, ALNUM, 32)),
    "r8": lambda r: whole("r8_" + mixed(r, ALNUM, 37)),
    "dop": lambda r: whole("dop_v1_" + pick(r, HEX, 64)),
    "jwt": lambda r: whole(jwt(r, {"alg": "RS256", "typ": "JWT", "kid": pick(r, HEX, 8)})),
    "jwt-none": lambda r: whole(jwt(r, {"alg": "none"})),
    "pem-rsa": lambda r: pem(r, "RSA PRIVATE KEY", 1190),
    "pem-ec": lambda r: pem(r, "EC PRIVATE KEY", 121),
    "pem-pkcs8": lambda r: pem(r, "PRIVATE KEY", 1217),
    "pem-openssh": lambda r: pem(r, "OPENSSH PRIVATE KEY", 400),
    "pem-encrypted": lambda r: pem(
        r,
        "RSA PRIVATE KEY",
        1190,
        armor=f"Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{pick(r, HEX, 32)}\n\n",
    ),
    "pem-pgp": lambda r: pem(r, "PGP PRIVATE KEY BLOCK", 900, armor="Version: GnuPG v2\n\n"),
    "pem-json": lambda r: pem(r, "PRIVATE KEY", 1217, newline="\\n"),
    "pem-truncated": lambda r: pem(r, "OPENSSH PRIVATE KEY", 400, end=False),
    "pem-crlf": lambda r: pem(r, "RSA PRIVATE KEY", 1190, newline="\r\n"),
    "pem-base64": lambda r: whole(b64(pem(r, "RSA PRIVATE KEY", 1190)[0].encode())),
    "opaque": lambda r: whole(mixed(r, ALNUM, 40)),
    "entropy32": lambda r: whole(mixed(r, ALNUM, 32)),
    "b64-200": lambda r: whole(b64(r.randbytes(150))),
    "b64url-300": lambda r: whole(with_dash(r, 300)),
    "hex64": lambda r: whole(pick(r, HEX, 64)),
    "sas-sig": lambda r: whole(mixed(r, ALNUM, 30) + "%2B" + mixed(r, ALNUM, 10) + "%3D"),
    "basic": lambda r: whole(b64(f"svc-{pick(r, HEX, 4)}:{mixed(r, ALNUM, 16)}".encode())),
    "basic-b64": lambda r: whole(b64(f"acme-bot:{mixed(r, ALNUM, 20)}".encode())),
    "password": lambda r: whole(mixed(r, ALNUM, 8) + r.choice("-_.!*~") + mixed(r, ALNUM, 6)),
    "django": lambda r: whole(
        r.choice(string.ascii_lowercase) + pick(r, string.ascii_lowercase + DIGITS + "!@#%^&*(-_=+)", 49)
    ),
    # Not secrets: what secrets are easily mistaken for.
    "sha40": lambda r: whole(pick(r, HEX, 40)),
    "sha7": lambda r: whole(pick(r, HEX, 7)),
    "uuid": lambda r: whole(str(uuid.UUID(bytes=r.randbytes(16), version=4))),
    "hex24": lambda r: whole(pick(r, HEX, 24)),
    "hex32": lambda r: whole(pick(r, HEX, 32)),
    "hex40": lambda r: whole(pick(r, HEX, 40)),
    "png": lambda r: whole(png(r)),
    "ssh-pub": lambda r: whole("AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + b64(r.randbytes(256))),
    "b64-lines": lambda r: whole("\n".join(b64(r.randbytes(48)) for _ in range(6))),
    "b64-44": lambda r: whole(b64(r.randbytes(32))),
    "cert-base64": lambda r: whole(b64(pem(r, "CERTIFICATE", 900)[0].encode())),
    "base62-24": lambda r: whole(mixed(r, ALNUM, 24)),
}


@dataclass(frozen=True)
class Secret:
    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class Sample:
    where: str
    text: str
    secrets: tuple[Secret, ...]


def load(name: str) -> list[Sample]:
    samples = []
    for number, line in enumerate((DATA / name).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("## "):
            continue
        rng = random.Random(f"{name}:{number}:{SEED}" if SEED else f"{name}:{number}")
        text, secrets, pos = "", [], 0
        for m in PLACEHOLDER.finditer(line):
            text += line[pos : m.start()].replace("⏎", "\n")
            if m["literal"] is not None:
                value, s, e = whole(m["literal"])
            else:
                value, s, e = GENERATORS[m["gen"]](rng)
            if m["kind"] != "neg":
                secrets.append(Secret(m["kind"], len(text) + s, len(text) + e))
            text += value
            pos = m.end()
        text += line[pos:].replace("⏎", "\n")
        samples.append(Sample(f"{name}:{number}", text, tuple(secrets)))
    return samples


POSITIVES = load("positives.txt")
NEGATIVES = load("negatives.txt")


def test_corpus_is_well_formed():
    assert all(s.secrets for s in POSITIVES), [s.where for s in POSITIVES if not s.secrets]
    assert not any(s.secrets for s in NEGATIVES)
    assert "«" not in "".join(s.text for s in POSITIVES + NEGATIVES).replace("«redacted:", "")


def test_every_kind_has_samples():
    counted = Counter(secret.kind for sample in POSITIVES for secret in sample.secrets)
    assert set(counted) <= set(KINDS)
    assert set(KINDS) - set(counted) == {"unreadable"}


def test_every_kind_is_documented():
    doc = (Path(__file__).parents[1] / "docs" / "secrets.md").read_text(encoding="utf-8")
    assert [kind for kind in KINDS if f"`{kind}`" not in doc] == []


def test_positives_are_found(capsys):
    found: Counter[str] = Counter()
    missed: list[str] = []
    extra: list[str] = []
    for sample in POSITIVES:
        spans = find_secrets(sample.text)
        for secret in sample.secrets:
            hits = [kind for kind, s, e in spans if s <= secret.start and secret.end <= e]
            if hits == [secret.kind]:
                found[secret.kind] += 1
            else:
                missed.append(f"{sample.where}: {secret.kind} -> {hits or 'not found'}")
        for kind, s, e in spans:
            if not any(s < secret.end and secret.start < e for secret in sample.secrets):
                extra.append(f"{sample.where}: {kind} {sample.text[s:e]!r}")
    expected = Counter(secret.kind for sample in POSITIVES for secret in sample.secrets)
    report = "\n".join(
        f"  {kind:18} found {found[kind]:3d} / {expected[kind]:3d}  missed {expected[kind] - found[kind]}"
        for kind in KINDS
        if expected[kind]
    )
    with capsys.disabled():
        print(f"\nsecrets per kind ({sum(found.values())} found of {sum(expected.values())}):\n{report}")
    assert not missed, "\n".join(missed)
    assert not extra, "redacted outside the secret:\n" + "\n".join(extra)


def test_negatives_are_left_alone(capsys):
    false_positives = [
        f"{sample.where}: {kind} {sample.text[s:e][:60]!r}"
        for sample in NEGATIVES
        for kind, s, e in find_secrets(sample.text)
    ]
    with capsys.disabled():
        print(f"\nnegatives: {len(NEGATIVES)} samples, {len(false_positives)} false positives")
    assert not false_positives, "\n".join(false_positives)
    for sample in NEGATIVES:
        assert redact(sample.text) == sample.text


def test_redacted_text_keeps_the_context_and_hides_the_secret():
    for sample in POSITIVES:
        out = redact(sample.text)
        for secret in sample.secrets:
            value = sample.text[secret.start : secret.end]
            if len(value) >= 8:
                assert value not in out, sample.where
            assert f"[REDACTED:{secret.kind}]" in out, sample.where
        # a marker replaces the secret and nothing around it: quotes, names, BEGIN/END lines, hosts stay
        for _kind, s, e in find_secrets(sample.text):
            inside = [c for c in sample.secrets if c.start < e and s < c.end]
            assert (s, e) == (min(c.start for c in inside), max(c.end for c in inside)), sample.where


# Spelled in parts so that no private key block, even a fake one, appears in the source.
EC_BEGIN, EC_END = (f"-----{edge} EC {'PRIVATE'} KEY-----" for edge in ("BEGIN", "END"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abcDEF0123456789ghiJKL", "Authorization: Bearer [REDACTED:bearer-token]"),
        ("https://user:s3cret-Pass@host/", "https://user:[REDACTED:url-password]@host/"),
        ("OPENAI_API_KEY=abcdef0123456789", "OPENAI_API_KEY=[REDACTED:env-secret]"),
        (
            '{"password": "hunter2!", "user": "bob"}',
            '{"password": "[REDACTED:config-secret]", "user": "bob"}',
        ),
        ("mysql --password hunter22 app", "mysql --password [REDACTED:cli-secret] app"),
        (
            f"{EC_BEGIN}\nMHcCAQEEIAbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n{EC_END}\n",
            f"{EC_BEGIN}\n[REDACTED:private-key]\n{EC_END}\n",
        ),
    ],
)
def test_markers_read_in_place(text, expected):
    assert redact(text) == expected


def test_one_long_document():
    """Every sample in one text, as a long tool output would hold them: same findings, right offsets."""
    samples = NEGATIVES + POSITIVES
    random.Random(7).shuffle(samples)
    text, secrets = "", []
    for sample in samples:
        secrets += [Secret(x.kind, x.start + len(text), x.end + len(text)) for x in sample.secrets]
        text += sample.text + "\n"
    spans = find_secrets(text)
    for secret in secrets:
        assert [k for k, s, e in spans if s <= secret.start and secret.end <= e] == [secret.kind], secret
    assert len(spans) == len({(k, s, e) for k, s, e in spans}) <= len(secrets)


def test_idempotent():
    for sample in POSITIVES + NEGATIVES:
        once = redact(sample.text)
        assert redact(once) == once, sample.where
        assert find_secrets(once) == [], sample.where


def test_offsets_survive_wide_characters():
    key = "ghp_" + "aB3cD4eF5gH6" * 3
    for prefix in ("", "é", "🔑 ", "İstanbul ", "日本語 ", "\ud800 "):
        text = f"{prefix}GITHUB_TOKEN={key} done"
        assert redact(text) == f"{prefix}GITHUB_TOKEN=[REDACTED:github-token] done"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00",
        "\ud800",
        "a" * 100_000,
        "eyJ" * 20_000,
        "-----BEGIN PRIVATE KEY-----" * 2_000,
        "-----BEGIN PRIVATE KEY-----\n" + "QUJD\n" * 20_000,
        "token=" * 20_000,
        "://:@" * 20_000,
        "Authorization: " * 10_000,
        "curl -u " * 10_000,
        "password: " * 10_000,
        '"key": "' * 10_000,
        "sk-" + "a" * 100_000,
        "AKIA" * 25_000,
        ":AA" * 30_000,
        "=" * 100_000,
        'token="' + "a" * 100_000,
        "token: " + "a" * 100_000,
        "x " * 200 + "password: " * 10_000,
        "--password " * 10_000,
        "https://" + "a" * 100_000,
        "ghp_" * 30_000,
        "Authorization: Bearer " + "a" * 100_000,
    ],
)
def test_never_raises_on_odd_input(text):
    out = redact(text)
    assert isinstance(out, str)
    assert redact(out) == out


def test_fails_closed(monkeypatch):
    def boom(text: str) -> list[tuple[int, int, int, str]]:
        raise RuntimeError("bug")

    monkeypatch.setattr(redact_module, "_candidates", boom)
    assert find_secrets("OPENAI_API_KEY=x") == [("unreadable", 0, 16)]
    assert redact("OPENAI_API_KEY=x") == "[REDACTED:unreadable]"
    assert redact("") == ""


def test_lines_are_redacted_as_one_text():
    """An edit's added lines hold a private key line by line: no one line is found, the lines together
    are; each line comes back, the covered parts as markers."""
    sample = next(s for s in POSITIVES if "RSA PRIVATE KEY" in s.text and "\r" not in s.text)
    lines = ["# deploy key", *sample.text.split("\n"), "done"]
    assert not any(find_secrets(line) for line in lines[2:-3])
    out = redact_lines(lines)
    assert len(out) == len(lines) and out[0] == "# deploy key" and out[-1] == "done"
    assert "\n".join(out).count("[REDACTED:private-key]") == len(lines) - 4
    secret = sample.secrets[0]
    assert sample.text[secret.start : secret.end].split("\n")[1] not in "\n".join(out)
    assert redact_lines(["a", "b"]) == ["a", "b"] and redact_lines([]) == []
