"""Confusion matrix display: scikit-learn's, the matrix from :func:`metrix.confusion_matrix`."""

from __future__ import annotations

import sklearn.metrics as _skm
from sklearn.utils.multiclass import unique_labels

from ..classification import confusion as _confusion
from ._host import host

__all__ = ["ConfusionMatrixDisplay"]


class ConfusionMatrixDisplay(_skm.ConfusionMatrixDisplay):
    """Confusion matrix visualization: :class:`sklearn.metrics.ConfusionMatrixDisplay`,
    the matrix from :func:`metrix.confusion_matrix`.

    Parameters
    ----------
    confusion_matrix : ndarray of shape (n_classes, n_classes)
        The matrix.
    display_labels : ndarray of shape (n_classes,), default=None
        The class names on the axes.

    See Also
    --------
    metrix.confusion_matrix : The matrix.
    """

    @classmethod
    def from_predictions(cls, y_true, y_pred, *, labels=None, sample_weight=None,
                         normalize=None, display_labels=None, include_values=True,
                         xticks_rotation="horizontal", values_format=None, cmap="viridis",
                         ax=None, colorbar=True, im_kw=None, text_kw=None):
        """Plot the confusion matrix of true and predicted labels (any library).

        The parameters are
        :meth:`sklearn.metrics.ConfusionMatrixDisplay.from_predictions`'s.

        Returns
        -------
        display : ConfusionMatrixDisplay
            The drawn display.
        """
        from sklearn.utils._optional_dependencies import check_matplotlib_support

        check_matplotlib_support(f"{cls.__name__}.from_predictions")
        if display_labels is None:
            display_labels = unique_labels(*host(y_true, y_pred)) if labels is None else labels
        cm = _confusion.confusion_matrix(y_true, y_pred, sample_weight=sample_weight,
                                         labels=labels, normalize=normalize)
        disp = cls(confusion_matrix=host(cm), display_labels=display_labels)
        return disp.plot(include_values=include_values, cmap=cmap, ax=ax,
                         xticks_rotation=xticks_rotation, values_format=values_format,
                         colorbar=colorbar, im_kw=im_kw, text_kw=text_kw)
