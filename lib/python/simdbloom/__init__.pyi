# SPDX-License-Identifier: Apache-2.0
from ._core import (
    Binary as Binary,
    CountingFilter as CountingFilter,
    CountingLayout as CountingLayout,
    Error as Error,
    Filter as Filter,
    FilterSet as FilterSet,
    Layout as Layout,
    ScalableFilter as ScalableFilter,
    ShiftingAssociation as ShiftingAssociation,
    ShiftingMultiplicity as ShiftingMultiplicity,
    SpatialFilter as SpatialFilter,
    active_target as active_target,
    available_targets as available_targets,
    counting_size_for as counting_size_for,
    layouts as layouts,
    reset_target as reset_target,
    set_target as set_target,
    size_for as size_for,
    version as version,
)

__version__: str
__all__: list[str]
