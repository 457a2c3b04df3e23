# SPDX-License-Identifier: Apache-2.0
from ._core import (
    Binary as Binary,
    Error as Error,
    Filter as Filter,
    Layout as Layout,
    active_target as active_target,
    available_targets as available_targets,
    layouts as layouts,
    reset_target as reset_target,
    set_target as set_target,
    size_for as size_for,
    version as version,
)

__version__: str
__all__: list[str]
