"""The WAIS codec against the sample APDUs of protspec.txt Appendix B, byte for byte.

The golden bytes below are the VALUE column of Appendix B, transcribed field by field.  Where
the appendix contradicts itself we say so and follow its bytes, not its prose:

* every "User-Information-Field" is printed ``0x??02 17`` / ``0x??02 24`` / ``0x??01 DD``: the
  tag is left as "??" and the byte before the length has no definition anywhere.  §5.1 assigns
  tag 99 (User-Information-Length) and the reference library writes tag 99 followed by the
  content length as a compressed integer; that is what we write (``USER_INFO(n)`` below).  The
  content lengths 0x17 (B.2) and 0x24 (B.3.1) agree with the elements that follow; B.3.2 says
  0x30 (48) for 47 bytes of elements (its byte positions skip byte 67) and B.4 says 0xDD (221)
  for 211: we write the true lengths.
* the APPENDIX_B dialect carries the appendix's own tag numbers (Query-Type 0x13,
  Implementation-Version 0x10, a Document-ID-Chunk written with tag 0x74) — see apdu.py.
* B.4's byte positions undercount Headline by ten; its hex values are unambiguous.
"""

from __future__ import annotations

import contextlib
import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omniurl.resolvers.errors import LimitExceeded, ProtocolError
from omniurl.resolvers.wais import tags as T
from omniurl.resolvers.wais.apdu import (
    APPENDIX_B,
    REFERENCE,
    Diagnostic,
    DocObj,
    DocumentHeader,
    DocumentText,
    InitAPDU,
    InitOptions,
    InitResponseAPDU,
    SearchAPDU,
    SearchResponseAPDU,
    TextQuery,
    WAISInitResponse,
    WAISSearch,
    WAISSearchResponse,
    decode_apdu,
)
from omniurl.resolvers.wais.compressed import (
    DecodeError,
    decode_compressed,
    encode_binary,
    encode_compressed,
)
from omniurl.resolvers.wais.header import MessageHeader, encode_header, frame, parse_header

h = bytes.fromhex


def USER_INFO(content: bytes) -> bytes:
    """Tag 99 and the content length (see the module docstring)."""
    return b"\x63" + encode_compressed(len(content)) + content


# -- B.1 Init APDU ----------------------------------------------------------------------------

B1 = h("0015140301010401C00502040006020800020400000001")

B1_APDU = InitAPDU(
    preferred_message_size=1024,
    maximum_record_size=2048,
    options=InitOptions(search=True, present=True),
    reference_id=h("00000001"),
)


def test_b1_init_encodes_byte_for_byte() -> None:
    assert B1_APDU.encode(APPENDIX_B) == B1


def test_b1_init_decodes() -> None:
    decoded = decode_apdu(B1, APPENDIX_B)
    assert decoded == dataclasses.replace(B1_APDU, protocol_version=b"\x01")
    assert decoded.options.search and decoded.options.present and not decoded.options.delete


# -- B.2 Init-Response APDU -------------------------------------------------------------------

B2_INFO = h("7D01407E018065010366021B6C67011168011269020D0A")
B2 = (
    h("002515010301010401C00502040006020400")
    + b"\x09\x08DowQuest"
    + b"\x10\x031.0"
    + h("020400000001")
    + USER_INFO(B2_INFO)
)

B2_APDU = InitResponseAPDU(
    result=True,
    preferred_message_size=1024,
    maximum_record_size=1024,
    options=InitOptions(search=True, present=True),
    implementation_name=b"DowQuest",
    implementation_version=b"1.0",
    reference_id=h("00000001"),
    info=WAISInitResponse(
        search_chunk_code_bitmap=b"\x40",  # "bit 2" in the appendix's note
        present_chunk_code_bitmap=b"\x80",
        chunk_id_length=3,
        chunk_marker=b"\x1bl",
        highlight_marker=b"\x11",
        dehighlight_marker=b"\x12",
        newline_characters=b"\r\n",
    ),
)


def test_b2_init_response_encodes_byte_for_byte() -> None:
    assert len(B2_INFO) == 0x17  # the appendix's length byte
    assert B2_APDU.encode(APPENDIX_B) == B2


def test_b2_init_response_decodes() -> None:
    assert decode_apdu(B2, APPENDIX_B) == dataclasses.replace(B2_APDU, protocol_version=b"\x01")


# -- B.3 Search APDU --------------------------------------------------------------------------

B3_HEADER = h("0018160004000008000008000111001200130133")
B31_QUERY = b"\x6a\x1fTell me about Thinking Machines" + h("720110")
B31 = B3_HEADER + h("020400000002") + USER_INFO(B31_QUERY)

B31_APDU = SearchAPDU(
    database_names=(b"",),
    query_type=b"3",
    reference_id=h("00000002"),
    query=WAISSearch(b"Tell me about Thinking Machines", max_documents=16),
)


def test_b31_search_encodes_byte_for_byte() -> None:
    assert len(B31_QUERY) == 0x24
    assert B31_APDU.encode(APPENDIX_B) == B31


def test_b31_search_decodes() -> None:
    assert decode_apdu(B31, APPENDIX_B) == B31_APDU


B32_QUERY = (
    b"\x6a\x05Apple"
    + h("720110")
    + b"\x74\x0a00000001WJ"
    + b"\x74\x0a00000023WJ"  # "Document-ID-Chunk", printed with tag 0x74
    + h("640102")
    + b"\x6c\x03005"
    + b"\x6d\x03007"
)
B32 = B3_HEADER + h("020400000003") + USER_INFO(B32_QUERY)


def test_b32_search_with_documents_encodes_byte_for_byte() -> None:
    apdu = SearchAPDU(
        database_names=(b"",),
        query_type=b"3",
        reference_id=h("00000003"),
        query=WAISSearch(
            b"Apple",
            max_documents=16,
            documents=(
                DocObj(b"00000001WJ"),
                DocObj(b"00000023WJ", chunk_code=2, start=b"005", end=b"007"),
            ),
        ),
    )
    assert apdu.encode(APPENDIX_B) == B32
    # and what we decode from the sample encodes back to the same bytes
    assert decode_apdu(B32, APPENDIX_B).encode(APPENDIX_B) == B32


# -- B.4 Search-Response APDU -----------------------------------------------------------------

B4_RECORDS = (
    b"\x74\x0c0000000001WJ"
    + h("7501007604000000227708000000000000000178080000000000000033")
    + b"\x79\x03WSJ"
    + b"\x7a\x06900601"
    + b"\x7b\x11TMC Releases WAIS"
    + b"\x7c\x0dCambridge, MA"
    + b"\x74\x0c0000000123ZF"
    + h("7501007604000000157708000000000000006E78080000000000000121")
    + b"\x79\x0dBusiness Week"
    + b"\x7a\x06900603"
    + b"\x7b\x13Apple Releases WAIS"
    + b"\x7c\x0dCupertino, CA"
)
B4 = h("001417000000020000020000001B0100020400000002") + USER_INFO(
    b"\x73\x11Thinking Machines" + B4_RECORDS
)

B4_APDU = SearchResponseAPDU(
    search_status=0,
    result_count=2,
    records_returned=2,
    next_result_set_position=0,
    present_status=0,
    reference_id=h("00000002"),
    info=WAISSearchResponse(
        seed_words_used=b"Thinking Machines",
        headers=(
            DocumentHeader(
                document_id=b"0000000001WJ",
                version_number=0,
                score=34,
                best_match=1,
                document_length=0x33,
                source=b"WSJ",
                date=b"900601",
                headline=b"TMC Releases WAIS",
                origin_city=b"Cambridge, MA",
            ),
            DocumentHeader(
                document_id=b"0000000123ZF",
                version_number=0,
                score=21,
                best_match=0x6E,
                document_length=0x121,
                source=b"Business Week",
                date=b"900603",
                headline=b"Apple Releases WAIS",
                origin_city=b"Cupertino, CA",
            ),
        ),
    ),
)


def test_b4_search_response_decodes() -> None:
    assert decode_apdu(B4, APPENDIX_B) == B4_APDU


def test_b4_search_response_encodes_byte_for_byte() -> None:
    assert B4_APDU.encode(APPENDIX_B) == B4


# -- the reference dialect (what goes on the wire) --------------------------------------------


def test_reference_init_differs_from_appendix_b_only_in_the_protocol_version_bitmap() -> None:
    # makeBitMap(1, true): bit 1 (the leftmost) set, "version 1".
    assert B1_APDU.encode(REFERENCE) == B1.replace(h("030101"), h("030180"))


def test_reference_search_uses_tag_20_for_query_type() -> None:
    encoded = B31_APDU.encode(REFERENCE)
    assert encoded == B31.replace(h("130133"), h("140133"))
    assert decode_apdu(encoded) == B31_APDU


def test_reference_headers_are_grouped_with_tag_150() -> None:
    header = DocumentHeader(b"id 1", score=1000, document_length=70000, types=(b"TEXT",))
    encoded = header.encode(REFERENCE)
    content = (
        b"\x74\x04id 1"
        + h("760203E8")  # Score 1000 in the fewest bytes (writeNum)
        + h("7803011170")  # Document-Length 70000: three bytes
        + h("810407810504")  # TYPE_BLOCK (132), 7 bytes: TYPE (133) "TEXT"
        + b"TEXT"
    )
    assert encoded == h("8116") + encode_compressed(len(content)) + content
    response = SearchResponseAPDU(result_count=1, info=WAISSearchResponse(headers=(header,)))
    assert decode_apdu(response.encode()) == response


def test_retrieval_query_is_the_type_1_term_list_of_the_reference_client() -> None:
    query = TextQuery((DocObj(b"7 /a b", b"TEXT", T.CT_BYTE, 0, 32768),))
    terms = (
        b"\x2c\x11un re ig ig ig ig" + b"\x2d\x067 /a b"
        b"\x2c\x11wt re ig ig ig ig" + b"\x2d\x04TEXT" + b"\x2e\x01a"
        b"\x2c\x11wb ro ig ig ig ig" + b"\x2d\x010" + b"\x2e\x01a"
        b"\x2c\x11wb rl ig ig ig ig" + b"\x2d\x0532768" + b"\x2e\x01a"
    )
    assert query.encode() == terms
    assert TextQuery.decode(terms) == query
    apdu = SearchAPDU(
        database_names=(b"db",),
        query_type=b"1",
        query=query,
        element_set_names=b" \x1fDocument Text",
    )
    encoded = apdu.encode()
    assert b"\x13\x0f \x1fDocument Text" in encoded  # tag 19: Element-Set-Names
    assert encoded.endswith(b"\x15" + encode_compressed(len(terms)) + terms)  # tag 21: Query
    assert decode_apdu(encoded) == apdu


def test_docids_of_any_octets_round_trip() -> None:
    docid = bytes(range(256))
    response = SearchResponseAPDU(
        info=WAISSearchResponse(
            headers=(DocumentHeader(docid),), texts=(DocumentText(docid, b"\x00\xff"),)
        )
    )
    decoded = decode_apdu(response.encode())
    assert isinstance(decoded, SearchResponseAPDU) and decoded.info is not None
    assert decoded.info.headers[0].document_id == docid
    assert decoded.info.texts[0].text == b"\x00\xff"


def test_diagnostic_record_layout() -> None:
    # tag 28, 2-byte length (3 + addinfo), code, addinfo, surrogate, end-of-record 0x1D
    diag = Diagnostic(b"S1", b"no such database")
    assert diag.encode() == b"\x1c\x00\x13S1no such database\x00\x1d"
    response = SearchResponseAPDU(search_status=1, info=WAISSearchResponse(diagnostics=(diag,)))
    assert decode_apdu(response.encode()) == response


# -- integers and the message header ----------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "encoded"),
    [(0, "00"), (99, "63"), (127, "7F"), (128, "8100"), (150, "8116"), (16384, "818000")],
)
def test_compressed_integers(value: int, encoded: str) -> None:
    assert encode_compressed(value) == h(encoded)
    assert decode_compressed(h(encoded) + b"tail", 0) == (value, len(h(encoded)))


def test_compressed_integer_errors() -> None:
    with pytest.raises(DecodeError, match="truncated"):
        decode_compressed(h("8181"), 0)
    with pytest.raises(DecodeError, match="longer than"):
        decode_compressed(h("8181818181818101"), 0)


def test_binary_integers() -> None:
    assert encode_binary(1024, 3) == h("000400")
    assert encode_binary(0) == h("00")
    assert encode_binary(70000) == h("011170")


def test_message_header_is_25_ascii_bytes() -> None:
    assert encode_header(23) == b"0000000023z2wais      " + b"  0"
    header = parse_header(encode_header(23, server=b"omniurl"))
    assert header == MessageHeader(23, server=b"omniurl")
    assert frame(B1) == encode_header(len(B1)) + B1


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"00000000x3z2wais        0", "10 decimal digits"),
        (b"0000000023a2wais        0", "message type"),
        (b"0000000023z2wais      u 0", "compression"),
        (b"0000000023z2wais       h0", "encoding"),
        (b"0000000023z2wais", "25 bytes"),
    ],
)
def test_bad_headers_are_protocol_errors(raw: bytes, message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        parse_header(raw)


def test_decoder_refuses_lengths_that_overrun_the_apdu() -> None:
    with pytest.raises(DecodeError, match="Header-Length-Indicator"):
        decode_apdu(h("0030") + B1[2:])
    with pytest.raises(DecodeError, match="claims"):
        decode_apdu(B31[:-5], APPENDIX_B)
    with pytest.raises(DecodeError, match="PDU type"):
        decode_apdu(h("000119"))


def test_limit_exceeded_is_a_protocol_error() -> None:
    assert issubclass(LimitExceeded, ProtocolError)


# -- properties ---------------------------------------------------------------------------------


_octets = st.binary(max_size=300)
_maybe = st.none() | st.binary(max_size=40)
_num = st.none() | st.integers(min_value=0, max_value=2**31 - 1)


@given(st.integers(min_value=0, max_value=2**28 - 1))
def test_compressed_integers_round_trip(value: int) -> None:
    encoded = encode_compressed(value)
    assert all(b & 0x80 for b in encoded[:-1]) and not encoded[-1] & 0x80
    assert decode_compressed(encoded, 0) == (value, len(encoded))


@given(
    st.lists(
        st.builds(
            DocumentHeader,
            document_id=_octets,
            version_number=_num,
            score=_num,
            best_match=_num,
            document_length=_num,
            lines=_num,
            types=st.lists(st.binary(min_size=1, max_size=8), max_size=3).map(tuple),
            source=_maybe,
            date=_maybe,
            headline=_maybe,
            origin_city=_maybe,
        ),
        max_size=5,
    ),
    st.lists(st.builds(DocumentText, document_id=_octets, text=_octets), max_size=3),
    _maybe,
)
def test_search_responses_round_trip(
    headers: list[DocumentHeader], texts: list[DocumentText], seed: bytes | None
) -> None:
    response = SearchResponseAPDU(
        result_count=len(headers),
        records_returned=len(headers),
        info=WAISSearchResponse(seed, tuple(headers), tuple(texts)),
    )
    assert decode_apdu(response.encode()) == response


@given(_octets, st.none() | st.binary(min_size=1, max_size=10), st.integers(0, 2**31), _octets)
def test_retrievals_round_trip(docid: bytes, wtype: bytes | None, start: int, db: bytes) -> None:
    apdu = SearchAPDU(
        database_names=(db.replace(b"\x1f", b""),),
        query_type=b"1",
        query=TextQuery((DocObj(docid, wtype, T.CT_BYTE, start, start + 4096),)),
        element_set_names=b" \x1fDocument Text",
    )
    assert decode_apdu(apdu.encode()) == apdu


_SAMPLES = [
    B1,
    B2,
    B31,
    B32,
    B4,
    B31_APDU.encode(),
    B4_APDU.encode(),
    SearchAPDU(
        database_names=(b"db",),
        query_type=b"1",
        query=TextQuery((DocObj(b"id", b"TEXT", T.CT_BYTE, 0, 10),)),
    ).encode(),
]


@given(
    st.sampled_from(_SAMPLES),
    st.integers(0, 300),
    st.lists(st.tuples(st.integers(0, 300), st.integers(0, 255)), max_size=3),
)
def test_mangled_apdus_fail_only_with_protocol_errors(
    sample: bytes, cut: int, changes: list[tuple[int, int]]
) -> None:
    data = bytearray(sample[:cut])
    for pos, byte in changes:
        if data:
            data[pos % len(data)] = byte
    for dialect in (REFERENCE, APPENDIX_B):
        with contextlib.suppress(ProtocolError):
            decode_apdu(bytes(data), dialect)
