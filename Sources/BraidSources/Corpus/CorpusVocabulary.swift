import Foundation

/// Word lists the demo corpus is generated from, each most common first: ``CorpusGenerator``
/// draws dishes (``dishes``), title qualifiers and extra ingredients with Zipf-like frequencies,
/// so that a corpus has head words (`curry`, `egg`: in a quarter to a third of all recipes),
/// torso words (`lasagna`, `tahini`: in under one recipe in a hundred) and tail words (`haggis`,
/// `mashua`: in one or two per thousand). Figures of a 20,000-recipe corpus.
enum CorpusVocabulary {
    /// Zipf exponents: dish rank r is drawn in proportion to 1 / r^exponent.
    static let dishExponent = 1.0
    static let qualifierExponent = 1.0
    static let ingredientExponent = 1.1

    static let qualifiers = [
        "Easy", "Quick", "Homemade", "Classic", "Simple", "Healthy", "Spicy", "Creamy", "Weeknight", "Grandma's", "One-Pot",
        "Crispy", "Smoky", "Vegan", "Gluten-Free", "Slow-Cooker", "Cheesy", "Hearty", "Light", "Rustic", "Authentic", "Budget",
        "Instant Pot", "Sheet-Pan", "Make-Ahead", "Garlicky", "Tangy", "Zesty", "Sticky", "Fluffy", "Golden", "Summer", "Winter",
        "Festive", "Midnight", "Lazy Sunday", "Velvety", "Charred", "Fiery", "Heirloom",
    ]
    static let japaneseQualifiers = ["簡単", "本格", "時短", "ふわふわ", "絶品", "濃厚", "和風", "さっぱり", "節約", "作り置き"]

    /// Added to a dish's own ingredients, up to three per recipe.
    static let extraIngredients = [
        "salt", "pepper", "garlic", "olive oil", "butter", "onion", "sugar", "lemon", "cheese",
        "chili", "honey", "sesame", "spinach", "coriander", "parsley", "ginger", "soy sauce", "cream",
        "mushroom", "bacon", "basil", "paprika", "cumin", "thyme", "rosemary", "oregano", "lime",
        "mint", "avocado", "corn", "peas", "bell pepper", "kale", "walnut", "almond",
        "cinnamon", "nutmeg", "vanilla", "maple syrup", "mustard", "vinegar", "yogurt", "feta", "mozzarella",
        "parmesan", "cashew", "peanut", "coconut milk", "fish sauce", "miso", "tahini", "sriracha", "kimchi",
        "dill", "chives", "leek", "fennel", "celery", "cabbage", "cauliflower", "broccoli", "sweet potato",
        "pumpkin", "beetroot", "radish", "turnip", "asparagus", "artichoke", "capers", "olives", "anchovy",
        "smoked paprika", "turmeric", "cardamom", "clove", "star anise", "saffron", "sumac", "za'atar", "harissa",
        "gochujang", "yuzu", "shiso", "sansho", "wasabi", "mirin", "sake", "bonito flakes", "kombu",
        "nori", "matcha", "black garlic", "truffle", "pine nut", "pistachio", "hazelnut", "pecan", "macadamia",
        "quinoa", "farro", "barley", "lentils", "chickpeas", "black beans", "edamame", "tempeh", "seitan",
        "paneer", "halloumi", "gruyere", "gorgonzola", "burrata", "ricotta", "mascarpone", "pancetta", "chorizo",
        "prosciutto", "duck fat", "lardo", "anise", "fenugreek", "asafoetida", "amchur", "galangal", "kaffir lime",
        "pandan", "tamarind", "jaggery", "sorghum", "teff", "amaranth", "freekeh", "nigella", "ajwain",
        "long pepper", "grains of paradise", "sea buckthorn", "lovage", "sorrel", "purslane", "ramps", "fiddleheads", "salsify",
        "kohlrabi", "romanesco", "celeriac", "yacon", "oca", "mashua",
    ]

    static let dishTable = ZipfTable(count: dishes.count, exponent: dishExponent)
    static let qualifierTable = ZipfTable(count: qualifiers.count, exponent: qualifierExponent)
    static let japaneseQualifierTable = ZipfTable(count: japaneseQualifiers.count, exponent: qualifierExponent)
    static let ingredientTable = ZipfTable(count: extraIngredients.count, exponent: ingredientExponent)

    static let firstNames = [
        "Aiko", "Ben", "Chloe", "Daiki", "Elena", "Farid", "Greta", "Hana", "Ivan", "Julia", "Kenji", "Lina",
        "Marco", "Nora", "Omar", "Priya", "Quinn", "Rin", "Sofia", "Takumi",
    ]
    static let lastNames = [
        "Tanaka", "Rossi", "Smith", "Suzuki", "Garcia", "Kim", "Müller", "Sato", "Dubois", "Silva", "Ito",
        "Novak",
    ]

    static let cooksnapComments = [
        "Made it tonight, delicious!", "Kids loved it.", "Added more garlic.", "美味しかった！",
        "Will make again.", "Easy and quick.", "作りました！", "Perfect for a rainy day.",
    ]
}
