"""Data-element tags of WAIS APDUs.

Tags 1-43 are Z39.50-1988's (Table 19 of the standard, as the reference library numbers them in
``zutil.h``); 44-46 are its Type-1 query terms; 99-130 are protspec.txt §5.1's WAIS extensions;
131-133 and the group tags 150-155 were added by the reference library ("added by harry") and
are what every deployed WAIS server sends.
"""

from __future__ import annotations

# -- Z39.50-1988 ----------------------------------------------------------------------------
PDU_INIT = 20
PDU_INIT_RESPONSE = 21
PDU_SEARCH = 22
PDU_SEARCH_RESPONSE = 23

REFERENCE_ID = 2
PROTOCOL_VERSION = 3
OPTIONS = 4
PREFERRED_MESSAGE_SIZE = 5
MAXIMUM_RECORD_SIZE = 6
ID_AUTHENTICATION = 7
IMPLEMENTATION_ID = 8
IMPLEMENTATION_NAME = 9
IMPLEMENTATION_VERSION = 10
RESULT_SET_NAME = 17
DATABASE_NAMES = 18
ELEMENT_SET_NAMES = 19
QUERY_TYPE = 20
QUERY = 21
RESULT_SET_STATUS = 26
PRESENT_STATUS = 27
DATABASE_DIAGNOSTIC_RECORDS = 28
# Type-1 query terms (the standard's Appendix B as the reference library writes them).
ATTRIBUTE_LIST = 44
TERM = 45
OPERATOR = 46

# -- WAIS extensions (protspec.txt §5.1) ----------------------------------------------------
USER_INFORMATION_LENGTH = 99
CHUNK_CODE = 100
CHUNK_ID_LENGTH = 101
CHUNK_MARKER = 102
HIGHLIGHT_MARKER = 103
DEHIGHLIGHT_MARKER = 104
NEWLINE_CHARACTERS = 105
SEED_WORDS = 106
DOCUMENT_ID_CHUNK = 107
CHUNK_START_ID = 108
CHUNK_END_ID = 109
TEXT_LIST = 110
DATE_FACTOR = 111
BEGIN_DATE_RANGE = 112
END_DATE_RANGE = 113
MAX_DOCUMENTS_RETRIEVED = 114
SEED_WORDS_USED = 115
DOCUMENT_ID = 116
VERSION_NUMBER = 117
SCORE = 118
BEST_MATCH = 119
DOCUMENT_LENGTH = 120
SOURCE = 121
DATE = 122
HEADLINE = 123
ORIGIN_CITY = 124
#: In an Init-Response, protspec.txt §5.1 / Appendix B.2 (the reference library reuses 125 and
#: 126 for Present-Start-Byte and Text-Length, which WAIS never sends).
SEARCH_CHUNK_CODE_BITMAP = 125
PRESENT_CHUNK_CODE_BITMAP = 126
DOCUMENT_TEXT = 127
STOCK_CODES = 128
COMPANY_CODES = 129
INDUSTRY_CODES = 130
# -- added by the reference library ---------------------------------------------------------
LINES = 131
TYPE_BLOCK = 132
TYPE = 133
DOCUMENT_HEADER_GROUP = 150
DOCUMENT_SHORT_HEADER_GROUP = 151
DOCUMENT_LONG_HEADER_GROUP = 152
DOCUMENT_TEXT_GROUP = 153
DOCUMENT_HEADLINE_GROUP = 154
DOCUMENT_CODE_GROUP = 155

# Chunk codes (protspec.txt §2.2.1).
CT_DOCUMENT = 0
CT_BYTE = 1
CT_LINE = 2
CT_PARAGRAPH = 3

# Query types: "3" relevance feedback (Appendix A), "1" the Type-1 text retrieval query.
QT_RELEVANCE_FEEDBACK = b"3"
QT_TEXT_RETRIEVAL = b"1"

# Separators inside a Database-Names / Element-Set-Names string (reference library, zprot.c).
DB_DELIMITER = b"\x1f"
ES_GROUP_DELIMITER = b"\x1e"
ES_DOCUMENT_TEXT = b"Document Text"
END_OF_RECORD = 0x1D
