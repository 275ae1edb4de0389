"""The keyring: AES-256-GCM round trips, contexts bound as associated data, key selection by key id."""

from __future__ import annotations

import subprocess
import sys

import pytest

from app.security.crypto import (
    OVERHEAD_BYTES,
    Context,
    DecryptionFailed,
    Keyring,
    UnknownKey,
    derive_key_id,
    key_id_of,
)

KEY_A = "key-a-0123456789-0123456789-0123456789"
KEY_B = "key-b-0123456789-0123456789-0123456789"
SPACE_1 = "8f1c7c1e-0000-4000-8000-000000000001"
SPACE_2 = "8f1c7c1e-0000-4000-8000-000000000002"


def secret(space: str = SPACE_1, name: str = "crm_token") -> Context:
    return Context.of("secret", space, name)


class TestRoundTrip:
    def test_decrypts_what_it_encrypted(self) -> None:
        keyring = Keyring(KEY_A)
        sealed = keyring.encrypt(b"s3cr3t value", secret())
        assert keyring.decrypt(sealed, secret()) == b"s3cr3t value"

    def test_ciphertext_does_not_contain_the_plaintext_and_is_fresh_each_time(self) -> None:
        keyring = Keyring(KEY_A)
        first = keyring.encrypt(b"s3cr3t value", secret())
        second = keyring.encrypt(b"s3cr3t value", secret())
        assert b"s3cr3t value" not in first
        assert first != second
        assert len(first) == len(b"s3cr3t value") + OVERHEAD_BYTES

    def test_binary_and_empty_plaintexts(self) -> None:
        keyring = Keyring(KEY_A)
        for plaintext in (b"", bytes(range(256)), "ünïcødé".encode()):
            assert keyring.decrypt(keyring.encrypt(plaintext, secret()), secret()) == plaintext


class TestAssociatedData:
    def test_another_name_does_not_decrypt(self) -> None:
        keyring = Keyring(KEY_A)
        sealed = keyring.encrypt(b"value", secret(name="crm_token"))
        with pytest.raises(DecryptionFailed):
            keyring.decrypt(sealed, secret(name="other_token"))

    def test_another_space_does_not_decrypt(self) -> None:
        keyring = Keyring(KEY_A)
        sealed = keyring.encrypt(b"value", secret(space=SPACE_1))
        with pytest.raises(DecryptionFailed):
            keyring.decrypt(sealed, secret(space=SPACE_2))

    def test_another_purpose_does_not_decrypt(self) -> None:
        keyring = Keyring(KEY_A)
        sealed = keyring.encrypt(b"value", Context.of("secret", SPACE_1, "x"))
        with pytest.raises(DecryptionFailed):
            keyring.decrypt(sealed, Context.of("mcp_oauth_token", SPACE_1, "x"))

    def test_identity_parts_cannot_be_shifted_between_fields(self) -> None:
        assert Context.of("p", "ab", "c").associated_data() != Context.of("p", "a", "bc").associated_data()
        keyring = Keyring(KEY_A)
        sealed = keyring.encrypt(b"value", Context.of("p", "ab", "c"))
        with pytest.raises(DecryptionFailed):
            keyring.decrypt(sealed, Context.of("p", "a", "bc"))


class TestTampering:
    @pytest.mark.parametrize("position", [-1, -17, OVERHEAD_BYTES - 16, 9])
    def test_a_flipped_bit_anywhere_fails(self, position: int) -> None:
        keyring = Keyring(KEY_A)
        sealed = bytearray(keyring.encrypt(b"some value", secret()))
        sealed[position] ^= 0x01
        with pytest.raises(DecryptionFailed):
            keyring.decrypt(bytes(sealed), secret())

    def test_truncated_and_foreign_formats_fail(self) -> None:
        keyring = Keyring(KEY_A)
        sealed = keyring.encrypt(b"some value", secret())
        for broken in (sealed[:-1], sealed[:10], b"", b"\x02" + sealed[1:]):
            with pytest.raises(DecryptionFailed):
                keyring.decrypt(broken, secret())

    def test_errors_do_not_carry_the_plaintext(self) -> None:
        keyring = Keyring(KEY_A)
        sealed = keyring.encrypt(b"plaintext-marker", secret())
        with pytest.raises(DecryptionFailed) as caught:
            keyring.decrypt(sealed, secret(name="elsewhere"))
        assert "plaintext-marker" not in str(caught.value)
        assert "plaintext-marker" not in repr(caught.value)


class TestKeyIds:
    def test_ciphertext_names_the_key_that_sealed_it(self) -> None:
        keyring = Keyring(KEY_A)
        assert key_id_of(keyring.encrypt(b"v", secret())) == keyring.current_key_id == derive_key_id(KEY_A)
        assert derive_key_id(KEY_A) != derive_key_id(KEY_B)
        assert len(derive_key_id(KEY_A)) == 16

    def test_decrypt_picks_the_key_by_its_id(self) -> None:
        under_a = Keyring(KEY_A).encrypt(b"from a", secret())
        under_b = Keyring(KEY_B).encrypt(b"from b", secret())
        both = Keyring(KEY_B, [KEY_A])
        assert both.current_key_id == derive_key_id(KEY_B)
        assert both.decrypt(under_a, secret()) == b"from a"
        assert both.decrypt(under_b, secret()) == b"from b"
        assert key_id_of(both.encrypt(b"new", secret())) == derive_key_id(KEY_B)

    def test_a_key_no_longer_configured_is_named_in_the_error(self) -> None:
        under_a = Keyring(KEY_A).encrypt(b"from a", secret())
        with pytest.raises(UnknownKey) as caught:
            Keyring(KEY_B).decrypt(under_a, secret())
        assert caught.value.key_id == derive_key_id(KEY_A)

    def test_a_key_id_swapped_in_the_header_does_not_open_it(self) -> None:
        both = Keyring(KEY_B, [KEY_A])
        under_a = Keyring(KEY_A).encrypt(b"from a", secret())
        relabelled = under_a[:1] + bytes.fromhex(derive_key_id(KEY_B)) + under_a[9:]
        with pytest.raises(DecryptionFailed):
            both.decrypt(relabelled, secret())

    def test_reencrypt_moves_a_value_to_the_current_key(self) -> None:
        under_a = Keyring(KEY_A).encrypt(b"value", secret())
        resealed = Keyring(KEY_B, [KEY_A]).reencrypt(under_a, secret())
        assert key_id_of(resealed) == derive_key_id(KEY_B)
        assert Keyring(KEY_B).decrypt(resealed, secret()) == b"value"

    def test_repr_shows_no_key_material(self) -> None:
        keyring = Keyring(KEY_B, [KEY_A])
        assert KEY_A not in repr(keyring)
        assert KEY_B not in repr(keyring)
        assert derive_key_id(KEY_B) in repr(keyring)


class TestLazyKeys:
    def test_an_empty_secret_is_refused_when_the_keyring_is_built(self) -> None:
        with pytest.raises(ValueError, match="empty secret"):
            Keyring("")
        with pytest.raises(ValueError, match="empty secret"):
            Keyring(KEY_A, [""])

    def test_building_a_keyring_loads_no_cryptography_bindings_until_a_key_is_used(self) -> None:
        # A fresh interpreter: this one loaded the bindings in the tests above.
        probe = (
            "import sys\n"
            "from app.security.crypto import Context, Keyring\n"
            f"keyring = Keyring({KEY_A!r})\n"
            "print('cryptography.hazmat.bindings._rust' in sys.modules)\n"
            "keyring.encrypt(b'x', Context.of('test'))\n"
            "print('cryptography.hazmat.bindings._rust' in sys.modules)\n"
        )
        answer = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
        assert answer.stdout.split() == ["False", "True"]
