"""This API's own reference."""

from ..records.system import OPENAPI_DOCUMENT
from ..registry import op

OPERATIONS = {
    "openapi_document": op("This document (OpenAPI 3.1)", returns=OPENAPI_DOCUMENT),
    "doc_page": op(
        "The browsable reference (public page shell; asks for the token)", media="text/html"
    ),
    "doc_asset": op("A script of the reference page (public)", media="text/javascript"),
}
