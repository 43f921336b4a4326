"""The engine's identity configuration."""

from ..records.system import IDENTITY
from ..registry import ANY_BODY, op

OPERATIONS = {
    "get_identity": op("The identity configuration", returns=IDENTITY),
    "patch_identity": op(
        "Change the identity configuration", body=ANY_BODY, body_required=True, returns=IDENTITY
    ),
}
