"""Status, type and scope filters in SQL, shared by every retrieval path."""

from __future__ import annotations

from .. import scope as scopes
from ..entries import check_type


def entry_filters(
    *,
    scope: str | None = None,
    type: str | None = None,
    project: str | None = None,
    include_inactive: bool = False,
    alias: str = "e",
    root: str | None = None,
) -> tuple[str, list]:
    """SQL over ``alias`` for status, type and scope.

    ``scope`` means "applies in that scope": the scope itself plus global memories. Without a
    scope, ``project`` keeps global, that project's and file-scoped entries (file scopes are
    matched against the files in play afterwards, in Python). ``root`` adds what the
    repository file of that checkout brought (scope ``repo:<root>``).
    """
    where, params = [], []
    if not include_inactive:
        where.append(f"{alias}.status = 'active'")
    if type:
        where.append(f"{alias}.type = ?")
        params.append(check_type(type))
    if scope:
        sc = scopes.parse(scope)
        if sc == scopes.GLOBAL:
            where.append(f"{alias}.scope = 'global'")
        elif root and sc.startswith("project:"):
            # The project's scope in its checkout includes what that checkout's file brought.
            where.append(f"({alias}.scope = 'global' OR {alias}.scope = ? OR {alias}.scope = ?)")
            params += [sc, "repo:" + root]
        else:
            where.append(f"({alias}.scope = 'global' OR {alias}.scope = ?)")
            params.append(sc)
    elif project is not None:
        sql, p = scopes.applicable_scopes_sql(scopes.normalize_project(project) if project else None, alias, root)
        where.append(sql)
        params.extend(p)
    return " AND ".join(where), params
