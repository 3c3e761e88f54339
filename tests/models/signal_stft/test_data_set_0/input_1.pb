
Bwindow_complexJ(Û}¿6A>›¿òŒ¿+Ç¾ƒi¿“€,¿B§¿>‡I?Ü†Å¼