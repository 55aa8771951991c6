"""dprelease: differentially private query release (Dwork & Roth, ch. 4-6)."""

from dprelease.data import Dataset
from dprelease.domain import Domain
from dprelease.errors import BudgetExceededError, DomainTooLargeError, DPReleaseError, InputError, SeededRunWarning
from dprelease.queries import DenseQuery, ProductQuery, QueryList, Workload

__version__ = "0.1.0"

__all__ = [
    "BudgetExceededError", "DPReleaseError", "Dataset", "DenseQuery", "Domain", "DomainTooLargeError",
    "InputError", "ProductQuery", "QueryList", "SeededRunWarning", "Workload", "__version__",
]
