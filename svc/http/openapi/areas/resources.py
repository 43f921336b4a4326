"""The key/value resource store."""

from ..records import extras as x
from ..registry import ANY_BODY, op

OPERATIONS = {
    "list_resources": op(
        "List resources (optionally under a key prefix)",
        query=("prefix", "limit"),
        returns=x.RESOURCES,
    ),
    "write_resource": op(
        "Write a resource named in the body",
        body=ANY_BODY,
        body_required=True,
        returns=x.RESOURCE_WRITTEN,
    ),
    "delete_resource": op(
        "Delete a resource named in the body", body=ANY_BODY, returns=x.RESOURCE_DELETED
    ),
    "resource_events": op(
        "Stream resource changes",
        stream=("resource.updated", "resource.deleted"),
        query=("since_seq", "tail"),
    ),
    "get_resource": op("Read one resource", returns=x.RESOURCE),
    "put_resource": op(
        "Write one resource", body=ANY_BODY, body_required=True, returns=x.RESOURCE_WRITTEN
    ),
    "patch_resource": op(
        "Merge-patch one resource's value",
        body=ANY_BODY,
        body_required=True,
        returns=x.RESOURCE_WRITTEN,
    ),
    "delete_resource_key": op("Delete one resource", returns=x.RESOURCE_DELETED),
}
