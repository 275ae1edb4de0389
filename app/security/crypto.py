"""Authenticated encryption of values at rest: AES-256-GCM under keys derived from the service secret.

A `Keyring` holds the current key and any previous ones, each known by a key id. Every ciphertext
names the key that sealed it, so decryption picks the right key by itself and a key rotation can
run while the service keeps reading and writing.

Every value is sealed for one `Context`: a purpose (what kind of column) and the identity of the
thing it belongs to (a space id and a secret name, a connection id, ...). The context is the
associated data of the encryption: a ciphertext copied to another row, another space or another
kind of column fails to decrypt instead of yielding a value in the wrong place.

Ciphertext layout: version (1 byte) | key id (8 bytes) | nonce (12 bytes) | AES-GCM output (data + tag).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

FORMAT_VERSION = 1
KEY_ID_BYTES = 8
NONCE_BYTES = 12
TAG_BYTES = 16
HEADER_BYTES = 1 + KEY_ID_BYTES
OVERHEAD_BYTES = HEADER_BYTES + NONCE_BYTES + TAG_BYTES

# The service secret is already high-entropy, so a fixed salt is enough; the salt and the info
# strings only keep these derivations apart from any other use of the same secret.
_SALT = b"automations keyring v1"
_DATA_KEY_INFO = b"aes-256-gcm data key"
_KEY_ID_INFO = b"key id"


class CryptoError(Exception):
    """A value could not be decrypted. Messages never contain key material or plaintext."""


class UnknownKey(CryptoError):
    """The ciphertext was sealed under a key this keyring does not hold."""

    def __init__(self, key_id: str) -> None:
        self.key_id = key_id
        super().__init__(f"no key with id {key_id} is configured (was the secret key changed?)")


class DecryptionFailed(CryptoError):
    """The ciphertext is damaged, or was sealed for another context."""


@dataclass(frozen=True)
class Context:
    """What a value is sealed for: a purpose and the identity of its owner, bound as associated data."""

    purpose: str
    identity: tuple[str, ...]

    @classmethod
    def of(cls, purpose: str, *identity: str) -> Context:
        """`Context.of("secret", str(space_id), name)`."""
        return cls(purpose, tuple(identity))

    def associated_data(self) -> bytes:
        """An unambiguous encoding: each part length-prefixed, so ("ab", "c") differs from ("a", "bc")."""
        encoded = bytearray()
        for part in (self.purpose, *self.identity):
            raw = part.encode("utf-8")
            encoded += len(raw).to_bytes(4, "big") + raw
        return bytes(encoded)


@dataclass(frozen=True, repr=False)
class _Key:
    key_id: str
    aead: AESGCM


def derive_key_id(secret: str) -> str:
    """The public id of the key derived from `secret` (hex); it reveals nothing about the key."""
    return _hkdf(secret, _KEY_ID_INFO, KEY_ID_BYTES).hex()


def _hkdf(secret: str, info: bytes, length: int) -> bytes:
    # The cryptography bindings (about 7 MiB resident) load with the first key derived, not with
    # this module: a process that never opens a sealed value never loads them.
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=length, salt=_SALT, info=info).derive(
        secret.encode("utf-8")
    )


def _derive(secret: str) -> _Key:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return _Key(key_id=derive_key_id(secret), aead=AESGCM(_hkdf(secret, _DATA_KEY_INFO, 32)))


def key_id_of(ciphertext: bytes) -> str:
    """The id of the key that sealed `ciphertext`."""
    if len(ciphertext) < OVERHEAD_BYTES or ciphertext[0] != FORMAT_VERSION:
        raise DecryptionFailed("not a ciphertext of a known format")
    return ciphertext[1:HEADER_BYTES].hex()


class Keyring:
    """The current key (which seals) and previous keys (which still open what they sealed)."""

    def __init__(self, current_secret: str, previous_secrets: Iterable[str] = ()) -> None:
        self._secrets = (current_secret, *previous_secrets)
        if not all(self._secrets):
            raise ValueError("an empty secret cannot derive a key")

    def __repr__(self) -> str:
        return f"Keyring(current={self._current.key_id}, keys={len(self._keys)})"

    # Keys are derived on first use: a process builds its keyring when it starts, but may never seal
    # or open anything (an API process serving webhook fires), and deriving loads the bindings.
    @cached_property
    def _current(self) -> _Key:
        return _derive(self._secrets[0])

    @cached_property
    def _keys(self) -> dict[str, _Key]:
        keys = {self._current.key_id: self._current}
        for secret in self._secrets[1:]:
            key = _derive(secret)
            keys.setdefault(key.key_id, key)
        return keys

    @property
    def current_key_id(self) -> str:
        return self._current.key_id

    @property
    def key_ids(self) -> frozenset[str]:
        """Ids of every key this keyring can decrypt with."""
        return frozenset(self._keys)

    def encrypt(self, plaintext: bytes, context: Context) -> bytes:
        """Seal `plaintext` for `context` under the current key."""
        header = bytes([FORMAT_VERSION]) + bytes.fromhex(self._current.key_id)
        # Random 96-bit nonces are safe far beyond the number of values one key will ever seal.
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._current.aead.encrypt(nonce, plaintext, header + context.associated_data())
        return header + nonce + sealed

    def decrypt(self, ciphertext: bytes, context: Context) -> bytes:
        """Open a ciphertext sealed for `context` under any key of this keyring."""
        key_id = key_id_of(ciphertext)
        key = self._keys.get(key_id)
        if key is None:
            raise UnknownKey(key_id)
        header, nonce = ciphertext[:HEADER_BYTES], ciphertext[HEADER_BYTES : HEADER_BYTES + NONCE_BYTES]
        try:
            return key.aead.decrypt(
                nonce, ciphertext[HEADER_BYTES + NONCE_BYTES :], header + context.associated_data()
            )
        except _invalid_tag():
            raise DecryptionFailed(
                "the ciphertext is damaged or belongs to another context (row, space or purpose)"
            ) from None

    def reencrypt(self, ciphertext: bytes, context: Context) -> bytes:
        """The same plaintext sealed under the current key (for key rotation)."""
        return self.encrypt(self.decrypt(ciphertext, context), context)


def _invalid_tag() -> type[Exception]:
    from cryptography.exceptions import InvalidTag

    return InvalidTag
